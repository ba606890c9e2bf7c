#!/usr/bin/env python3
# SYNTHETIC: 4 GPU hosts, each with 8 compute rails (ens1np0..ens8np0, 400G) to
# 8 rail leaves and an onboard eno1 to one management switch, as lldpd 1.0.16
# prints `lldpcli show neighbors details` (keys, their order and the MAU
# strings copied from its real output in ../*.neighbors_details.* and from
# liblldpctl 1.0.16's MAU table). Rewrites the directories beside it:
#   json/      hosts and switches in -f json, speeds from the MAU type
#   keyvalue/  the same in -f keyvalue, eno1 at 25G
#   nospeed/   keyvalue with no MAU type, plus HOST.node.json (atoll-topo node
#              --json) naming the RDMA netdevs and their rates
#   mixed/     keyvalue, with a CPU partition beside the GPU hosts: cpu01..06,
#              each one 100G ens1np0 to leaf-cpu (cabled to both spines) and
#              eno1 at 25G to mgmt01; more CPU hosts than GPU hosts
#   storage/   keyvalue, each GPU host also with two 400G storage ports
#              (enp170s0f0np0, enp170s0f1np1, as fast as its rails) to
#              stor-leaf1 and stor-leaf2, which are cabled to stor-spine01
#              and 02 only (a storage fabric apart from the rails'), with the
#              storage switches' tables
#   dgx/       keyvalue as storage/ without the storage switches' tables, with
#              HOST.node.json: 8 GPUs, each with its own rail adapter under its
#              PCIe switch (PXB, as on a DGX H100), and the two storage
#              adapters (mlx5_8, mlx5_9) no GPU's
# (nospeed/*.keyvalue alone is the case where nothing tells eno1 apart.)
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
HOSTS = ["gpu01", "gpu02", "gpu03", "gpu04"]
R400 = "400GbaseDR4 - 400GBASE-R PCS/PMA over 4-lane single-mode fiber PMD"
R10 = "10GbaseT - Four-pair Category 6A or better, full duplex mode only"
R25 = "25GbaseCR - 25GBASE-R PCS/PMA over shielded balanced copper cable"

def mac(kind, i):
    return "1c:34:da:%02x:00:%02x" % (kind, i)

def switch(name, kind, i):
    return {"name": name + ".fabric.example.net", "mac": mac(kind, i), "descr": "SYNTHETIC " + name,
            "bridge": True}

def tables(frontend_mau):
    """system -> list of (local iface, neighbour chassis, neighbour port, mau)"""
    t = {}
    for h, host in enumerate(HOSTS, 1):
        rows = [("eno1", dict(switch("mgmt01", 0x30, 1), name="mgmt01.oob.example.net"), "Gi1/0/%d" % h, frontend_mau)]
        for r in range(1, 9):
            rows.append(("ens%dnp0" % r, switch("leaf-r%d" % r, 0x10, r), "swp%d" % h, R400))
        t[host] = rows
    for r in range(1, 9):
        t["leaf-r%d" % r] = [("swp%d" % (48 + s), switch("spine%02d" % s, 0x20, s), "swp%d" % r, R400) for s in (1, 2)]
    for s in (1, 2):
        t["spine%02d" % s] = [("swp%d" % r, switch("leaf-r%d" % r, 0x10, r), "swp%d" % (48 + s), R400) for r in range(1, 9)]
    return t

R100 = "100GbaseCR4 - 100GBASE-R PCS/PMA over 4 lane shielded copper balanced cable PMD"

def mixed_tables():
    t = tables(R25)
    for c in range(1, 7):
        t["cpu%02d" % c] = [("eno1", dict(switch("mgmt01", 0x30, 1), name="mgmt01.oob.example.net"), "Gi1/0/%d" % (10 + c), R25),
                            ("ens1np0", switch("leaf-cpu", 0x40, 1), "swp%d" % c, R100)]
    t["leaf-cpu"] = [("swp%d" % (48 + s), switch("spine%02d" % s, 0x20, s), "swp9", R400) for s in (1, 2)]
    for s in (1, 2):
        t["spine%02d" % s].append(("swp9", switch("leaf-cpu", 0x40, 1), "swp%d" % (48 + s), R400))
    return t

def storage_tables():
    t = tables(R25)
    for h, host in enumerate(HOSTS, 1):
        for k in (1, 2):
            t[host].append(("enp170s0f%dnp%d" % (k - 1, k - 1), switch("stor-leaf%d" % k, 0x50, k), "swp%d" % h, R400))
    for k in (1, 2):
        t["stor-leaf%d" % k] = [("swp%d" % (48 + s), switch("stor-spine%02d" % s, 0x60, s), "swp%d" % k, R400) for s in (1, 2)]
    for s in (1, 2):
        t["stor-spine%02d" % s] = [("swp%d" % k, switch("stor-leaf%d" % k, 0x50, k), "swp%d" % (48 + s), R400) for k in (1, 2)]
    return t

def dgx_node_json():
    ports = []
    for r in range(10):
        nd = "ens%dnp0" % (r + 1) if r < 8 else "enp170s0f%dnp%d" % (r - 8, r - 8)
        ports.append({"hca": "mlx5_%d" % r, "port": 1, "link_layer": "Ethernet", "state": "4: ACTIVE",
                      "rate": "400 Gb/sec (4X NDR)", "netdevs": [nd],
                      "roce_v2_gid_index": 3, "roce_v2_gid": "0000:0000:0000:0000:0000:ffff:0a%02x:%02x01" % (r, r)})
    gpus = [{"gpu": g, "pci": "0000:%02x:00.0" % (0x18 + 0x10 * g), "nearest_hca": "mlx5_%d" % g, "distance": "PXB",
             "equally_near": 1} for g in range(8)]
    return json.dumps({"gpus": gpus, "ports": ports}, indent=2) + "\n"

def as_json(rows):
    out = []
    for rid, (iface, ch, port, mau) in enumerate(rows, 1):
        caps = [{"type": "Bridge", "enabled": ch["bridge"]}, {"type": "Router", "enabled": ch["bridge"]},
                {"type": "Wlan", "enabled": False}, {"type": "Station", "enabled": False}]
        p = {"id": {"type": "ifname", "value": port}, "ttl": "120"}
        if mau is not None:
            p["auto-negotiation"] = {"supported": False, "enabled": False, "current": mau}
        out.append({iface: {"via": "LLDP", "rid": str(rid), "age": "0 day, 00:12:%02d" % rid,
                            "chassis": {ch["name"]: {"id": {"type": "mac", "value": ch["mac"]}, "descr": ch["descr"],
                                                     "capability": caps}},
                            "port": p}})
    return json.dumps({"lldp": {"interface": out}}, indent=2) + "\n"

def as_keyvalue(rows):
    s = ""
    for rid, (iface, ch, port, mau) in enumerate(rows, 1):
        on = "on" if ch["bridge"] else "off"
        k = "lldp.%s." % iface
        s += k + "via=LLDP\n" + k + "rid=%d\n" % rid + k + "age=0 day, 00:12:%02d\n" % rid
        s += k + "chassis.mac=%s\n" % ch["mac"] + k + "chassis.name=%s\n" % ch["name"] + k + "chassis.descr=%s\n" % ch["descr"]
        s += k + "chassis.Bridge.enabled=%s\n" % on + k + "chassis.Router.enabled=%s\n" % on
        s += k + "chassis.Wlan.enabled=off\n" + k + "chassis.Station.enabled=off\n"
        s += k + "port.ifname=%s\n" % port + k + "port.ttl=120\n"
        if mau is not None:
            s += k + "port.auto-negotiation.supported=no\n" + k + "port.auto-negotiation.enabled=no\n"
            s += k + "port.auto-negotiation.current=%s\n" % mau
    return s

def node_json():
    ports = []
    for r in range(8):
        ports.append({"hca": "mlx5_%d" % r, "port": 1, "link_layer": "Ethernet", "state": "4: ACTIVE",
                      "rate": "400 Gb/sec (4X NDR)", "netdevs": ["ens%dnp0" % (r + 1)],
                      "roce_v2_gid_index": 3, "roce_v2_gid": "0000:0000:0000:0000:0000:ffff:0a%02x:%02x01" % (r, r)})
    return json.dumps({"gpus": [], "ports": ports}, indent=2) + "\n"

def write(d, name, text):
    os.makedirs(os.path.join(HERE, d), exist_ok=True)
    with open(os.path.join(HERE, d, name), "w") as f:
        f.write(text)

for system, rows in tables(R10).items():
    write("json", system + ".json", as_json(rows))
for system, rows in tables(R25).items():
    write("keyvalue", system + ".keyvalue", as_keyvalue(rows))
for system, rows in tables(None).items():
    rows = [(i, c, p, None) for i, c, p, _ in rows]
    write("nospeed", system + ".keyvalue", as_keyvalue(rows))
    if system in HOSTS:
        write("nospeed", system + ".node.json", node_json())
for system, rows in mixed_tables().items():
    write("mixed", system + ".keyvalue", as_keyvalue(rows))
for system, rows in storage_tables().items():
    write("storage", system + ".keyvalue", as_keyvalue(rows))
for system, rows in storage_tables().items():
    if not system.startswith("stor-"):
        write("dgx", system + ".keyvalue", as_keyvalue(rows))
    if system in HOSTS:
        write("dgx", system + ".node.json", dgx_node_json())
