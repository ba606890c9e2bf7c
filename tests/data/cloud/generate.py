#!/usr/bin/env python3
"""Writes the 64-instance cloud fixtures of tests/data/cloud (see
tests/data/PROVENANCE.md). Run from this directory: python3 generate.py.
Shapes follow each provider's API reference; IDs are synthetic."""
import json

# GCP A4X-like: 1 cluster, 2 blocks, sub-blocks of 18 hosts (one NVL72 each):
# block a: a1 18, a2 18; block b: b1 18, b2 10 -> 64 placed VMs.
GCP = [("c7d1e5a2f0", "b0f3a1", "s1a9", 18), ("c7d1e5a2f0", "b0f3a1", "s2c4", 18),
       ("c7d1e5a2f0", "b9e27d", "s3d8", 18), ("c7d1e5a2f0", "b9e27d", "s4f1", 10)]


def gcp():
    items, n = [], 0
    for cluster, block, sub, count in GCP:
        for _ in range(count):
            n += 1
            items.append({
                "kind": "compute#instance",
                "id": str(4611686018427387904 + n),
                "creationTimestamp": "2026-11-02T08:14:11.201-08:00",
                "name": "a4x-%03d" % n,
                "machineType": "https://www.googleapis.com/compute/v1/projects/example/zones/us-central1-a/machineTypes/a4x-highgpu-4g",
                "status": "RUNNING",
                "zone": "https://www.googleapis.com/compute/v1/projects/example/zones/us-central1-a",
                "resourceStatus": {"physicalHostTopology": {
                    "cluster": cluster, "block": block, "subblock": sub, "host": "h%05x" % (0x1a000 + n)}},
            })
    # a login VM that is not placed on the A4X fabric
    items.insert(20, {"kind": "compute#instance", "id": "4611686018427388999", "name": "login-0",
                      "machineType": "https://www.googleapis.com/compute/v1/projects/example/zones/us-central1-a/machineTypes/n2-standard-8",
                      "status": "RUNNING", "resourceStatus": {}})
    json.dump({"kind": "compute#instanceList",
               "id": "projects/example/zones/us-central1-a/instances", "items": items,
               "selfLink": "https://www.googleapis.com/compute/v1/projects/example/zones/us-central1-a/instances"},
              open("gcp-instances.json", "w"), indent=1)
    return items


def gke():
    items, n = [], 0
    for cluster, block, sub, count in GCP:
        for _ in range(count):
            n += 1
            items.append({"apiVersion": "v1", "kind": "Node", "metadata": {
                "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
                "name": "gke-a4x-pool-%08x-%04d" % (0x5e7a0c31, n),
                "labels": {
                    "beta.kubernetes.io/arch": "arm64",
                    "cloud.google.com/gke-nodepool": "a4x-pool",
                    "cloud.google.com/gce-topology-block": block,
                    "cloud.google.com/gce-topology-subblock": sub,
                    "cloud.google.com/gce-topology-host": "h%05x" % (0x1a000 + n),
                    "kubernetes.io/hostname": "gke-a4x-pool-%08x-%04d" % (0x5e7a0c31, n),
                    "node.kubernetes.io/instance-type": "a4x-highgpu-4g"}},
                "spec": {"providerID": "gce://example/us-central1-a/gke-a4x-pool-%08x-%04d" % (0x5e7a0c31, n)}})
    items.append({"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "gke-default-pool-1a2b3c4d-0001",
        "labels": {"cloud.google.com/gke-nodepool": "default-pool", "kubernetes.io/hostname": "gke-default-pool-1a2b3c4d-0001"}}})
    json.dump({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}},
              open("gke-nodes.json", "w"), indent=1)


# OCI: 1 HPC island, 2 network blocks of 4 local blocks of 8 hosts; one GPU
# memory fabric per local block.
def oci_hosts():
    out, n = [], 0
    for nb in range(1, 3):
        for lb in range(1, 5):
            for _ in range(8):
                n += 1
                out.append({
                    "host": "gpu-%03d" % n,
                    "instance": "ocid1.instance.oc1.ap-osaka-1.anvwgljr%024d" % n,
                    "computehost": "ocid1.computebaremetalhost.oc1.ap-osaka-1.anvwgljr%024d" % n,
                    "island": "ocid1.hpcisland.oc1.ap-osaka-1.anvwgljr7qmca5aa",
                    "network": "ocid1.computenetworkblock.oc1.ap-osaka-1.anvwgljrnb%02daa" % nb,
                    "local": "ocid1.computelocalblock.oc1.ap-osaka-1.anvwgljrlb%02daa" % ((nb - 1) * 4 + lb),
                    "fabric": "ocid1.computegpumemoryfabric.oc1.ap-osaka-1.anvwgljrgf%02daa" % ((nb - 1) * 4 + lb),
                })
    return out


def oci():
    hosts = oci_hosts()
    with open("oci-rdma-topology.pdsh", "w") as f:
        for h in hosts:
            d = {"customerGpuMemoryFabric": h["fabric"], "customerHPCIslandId": h["island"],
                 "customerHostId": h["computehost"], "customerLocalBlock": h["local"],
                 "customerNetworkBlock": h["network"]}
            f.write("%s: %s\n" % (h["host"], json.dumps(d)))
    items = [{"availabilityDomain": "AyvI:AP-OSAKA-1-AD-1", "compartmentId": "ocid1.tenancy.oc1..aaaaaaaaexample",
              "displayName": "host-%03d" % i, "faultDomain": "FAULT-DOMAIN-%d" % (i % 3 + 1),
              "gpuMemoryFabricId": h["fabric"], "health": "HEALTHY", "hpcIslandId": h["island"],
              "id": h["computehost"], "instanceId": h["instance"], "lifecycleState": "ACTIVE",
              "localBlockId": h["local"], "networkBlockId": h["network"], "shape": "BM.GPU.GB200.4",
              "timeCreated": "2026-10-01T10:00:00.000Z"} for i, h in enumerate(hosts, 1)]
    items.insert(5, {"availabilityDomain": "AyvI:AP-OSAKA-1-AD-1", "displayName": "host-spare",
                     "id": "ocid1.computebaremetalhost.oc1.ap-osaka-1.anvwgljrspare", "health": "HEALTHY",
                     "hpcIslandId": hosts[0]["island"], "lifecycleState": "AVAILABLE",
                     "localBlockId": hosts[0]["local"], "networkBlockId": hosts[0]["network"],
                     "shape": "BM.GPU.GB200.4"})
    json.dump({"items": items}, open("oci-compute-hosts.json", "w"), indent=1)


# Nebius: path root first (3 tiers); 2 spine groups under one fabric root,
# 4 leaves of 8 under each; NVLink groups of 16 (two leaves).
def nebius():
    items, n = [], 0
    for sp in range(1, 3):
        for lf in range(1, 5):
            for _ in range(8):
                n += 1
                items.append({
                    "metadata": {"id": "computeinstance-e00%015x" % (0x7a00 + n), "parent_id": "project-e00example",
                                 "name": "worker-%d" % (n - 1), "resource_version": "4"},
                    "spec": {"resources": {"platform": "gpu-b200-sxm", "preset": "8gpu-160vcpu-1792gb"},
                             "gpu_cluster": {"id": "computegpucluster-e00example"},
                             "nvl_instance_group_id": "nvlgroup-e00%04d" % ((n - 1) // 16 + 1)},
                    "status": {"state": "RUNNING",
                               "infiniband_topology_path": {"path": ["fabric-7", "spine-7-%d" % sp, "leaf-7-%d-%d" % (sp, lf)]}},
                })
    items.append({"metadata": {"id": "computeinstance-e00cpu0001", "name": "login-0"},
                  "spec": {"resources": {"platform": "cpu-d3", "preset": "4vcpu-16gb"}}, "status": {"state": "RUNNING"}})
    json.dump({"items": items}, open("nebius-instances.json", "w"), indent=1)


# AWS P6e-GB200-like: 1 core, 2 pods, 4 leaves of 8 each; a CapacityBlockId
# per 16 instances (the NVL72 UltraServer), as the docs show it.
def aws():
    inst, n = [], 0
    for pod in range(1, 3):
        for leaf in range(1, 5):
            for _ in range(8):
                n += 1
                inst.append({"InstanceId": "i-0%016x" % (0x1f00 + n), "InstanceType": "p6e-gb200.36xlarge",
                             "NetworkNodes": ["nn-%016x" % 0xc0, "nn-%016x" % (0xd0 + pod), "nn-%016x" % (0xe0 + (pod - 1) * 4 + leaf)],
                             "CapacityBlockId": "cr-0%016x" % (0xcb0 + (n - 1) // 16),
                             "ZoneId": "usw2-az4", "AvailabilityZone": "us-west-2d"})
    json.dump({"Instances": inst}, open("aws-p6e-gb200.json", "w"), indent=1)


gcp()
gke()
oci()
nebius()
aws()
