/* Each GPU's nearest HCA from hwloc (see gpu_hca.h). */
#include "node/gpu_hca.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <string.h>

enum { PIX, PXB, PHB, NODE, SYS };
static const char *const class_names[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};

/* The lowest common ancestor by parent links (hwloc's helper compares depths,
 * which are negative virtual depths for I/O objects: it crashed on a GPU and
 * an HCA behind one PCIe switch) and its distance from the root. */
static hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b, int *depth)
{
    for (hwloc_obj_t x = a; x; x = x->parent)
        for (hwloc_obj_t y = b; y; y = y->parent)
            if (x == y) {
                *depth = 0;
                for (hwloc_obj_t z = x; z->parent; z = z->parent)
                    ++*depth;
                return x;
            }
    *depth = -1;
    return NULL;
}

static int bridges_between(hwloc_obj_t x, hwloc_obj_t top)
{
    int n = 0;
    for (hwloc_obj_t y = x->parent; y && y != top; y = y->parent)
        n += y->type == HWLOC_OBJ_BRIDGE;
    return n;
}

/* NCCL's path class between two PCI objects; the deeper the nearer within one. */
static int classify(hwloc_obj_t a, hwloc_obj_t b, int *depth)
{
    hwloc_obj_t lca = common_ancestor(a, b, depth);
    if (!lca)
        return SYS;
    if (lca->type == HWLOC_OBJ_BRIDGE) {
        if (lca->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
            return PHB;
        return bridges_between(a, lca) == 0 && bridges_between(b, lca) == 0 ? PIX : PXB;
    }
    if (lca->type == HWLOC_OBJ_PCI_DEVICE)
        return PIX;
    hwloc_obj_t nonio = lca;
    while (nonio && !nonio->cpuset)
        nonio = nonio->parent;
    if (nonio && nonio->nodeset && hwloc_bitmap_weight(nonio->nodeset) <= 1)
        return NODE;
    return SYS;
}

int atl_gpu_hcas3(const char *xml, atl_hca_keep_fn keep, void *arg, struct atl_gpu_hca *out, int max, char *err,
                 size_t errlen)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        snprintf(err, errlen, "hwloc: cannot initialise");
        return -1;
    }
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    int live = !xml || !*xml;
    if ((!live && hwloc_topology_set_xml(topo, xml) != 0) || hwloc_topology_load(topo) != 0) {
        snprintf(err, errlen, "hwloc: cannot load %s: %s", live ? "this machine" : xml, strerror(errno));
        hwloc_topology_destroy(topo);
        return -1;
    }
    int ngpu = 0;
    for (hwloc_obj_t g = hwloc_get_next_pcidev(topo, NULL); g; g = hwloc_get_next_pcidev(topo, g)) {
        if (g->attr->pcidev.vendor_id != 0x10de || (g->attr->pcidev.class_id >> 8) != 0x03)
            continue;
        if (ngpu < max) {
            struct atl_gpu_hca *r = &out[ngpu];
            memset(r, 0, sizeof *r);
            snprintf(r->gpu_busid, sizeof r->gpu_busid, "%04x:%02x:%02x.%01x", g->attr->pcidev.domain,
                     g->attr->pcidev.bus, g->attr->pcidev.dev, g->attr->pcidev.func);
            int best = 99, best_depth = -1;
            for (hwloc_obj_t o = hwloc_get_next_osdev(topo, NULL); o; o = hwloc_get_next_osdev(topo, o)) {
                if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS || !o->parent)
                    continue;
                const char *name = o->name ? o->name : "";
                char at[32] = "";
                if (o->parent->type == HWLOC_OBJ_PCI_DEVICE)
                    snprintf(at, sizeof at, "%04x:%02x:%02x.%01x", o->parent->attr->pcidev.domain,
                             o->parent->attr->pcidev.bus, o->parent->attr->pcidev.dev, o->parent->attr->pcidev.func);
                if (keep && !keep(name, at, arg))
                    continue;
                int depth = 0;
                int cls = classify(g, o->parent, &depth);
                if (cls == best && depth == best_depth) {
                    ++r->ties;
                } else if (cls < best || (cls == best && depth > best_depth)) {
                    best = cls;
                    best_depth = depth;
                    r->ties = 1;
                    snprintf(r->hca, sizeof r->hca, "%s", name);
                    snprintf(r->distance, sizeof r->distance, "%s", class_names[cls]);
                    snprintf(r->hca_busid, sizeof r->hca_busid, "%s", at);
                }
            }
        }
        ++ngpu;
    }
    hwloc_topology_destroy(topo);
    return ngpu;
}
