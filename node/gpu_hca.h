/* Each GPU's nearest HCA from hwloc, with the PCIe distance class as NCCL
 * names it. Plain C, so that the SPANK plugin can keep hwloc out of srun and
 * load it (spank/atoll-hwloc.so) only where a node asks for GPU affinity. */
#ifndef ATOLL_NODE_GPU_HCA_H
#define ATOLL_NODE_GPU_HCA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct atl_gpu_hca {
    char gpu_busid[32]; /* "0000:07:00.0" */
    char hca[64];       /* "mlx5_0"; empty when no HCA is kept */
    char distance[8];   /* PIX, PXB, PHB, NODE, SYS; empty with no HCA */
    int ties;           /* HCAs as near as `hca` (same class, same depth): 1 when it is the one */
    char hca_busid[32]; /* the PCI device hwloc puts `hca` under ("0000:3b:00.0"); empty when none */
};

/* May HCA `name`, under the PCI device `busid` ("" when it is under none),
 * be chosen? Nonzero: yes. Called for every HCA of the XML (for each GPU). */
typedef int (*atl_hca_keep_fn)(const char *name, const char *busid, void *arg);

/* (atl_gpu_hcas2: the struct gained hca_busid; atl_gpu_hcas3: `keep` gained
 * the HCA's PCI address. So a plugin and an atoll-hwloc.so of different
 * builds find no symbol rather than misread it.)
 * GPUs (PCI vendor 0x10de, display class) of the saved hwloc XML `xml`, or
 * of this machine when xml is NULL or empty, in PCI order, each with its
 * nearest HCA among those `keep` accepts (all when keep is NULL): the best
 * class, then the deepest common ancestor; `ties` counts the HCAs as near as
 * that (an Azure ND VM puts every device under its own host bridge, so four
 * are equally near each GPU: then no order among them is hwloc's). Writes up to `max` entries and
 * returns how many GPUs there are, or -1 with a message in err. */
int atl_gpu_hcas3(const char *xml, atl_hca_keep_fn keep, void *arg, struct atl_gpu_hca *out, int max, char *err,
                 size_t errlen);

typedef int (*atl_gpu_hcas_fn)(const char *, atl_hca_keep_fn, void *, struct atl_gpu_hca *, int, char *, size_t);

#ifdef __cplusplus
}
#endif

#endif
