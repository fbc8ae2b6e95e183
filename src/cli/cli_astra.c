/*
 * cli_astra.c -- migration from ASTRA-sim's command lines (docs/astra-compat.md,
 * "Migrating from ASTRA-sim").
 *
 * ASTRA-sim selects its network backend by the binary a user runs
 * (AstraSim_Analytical_Congestion_Unaware, AstraSim_Analytical_Congestion_Aware,
 * ns3.42-AstraSimNetwork-default, AstraSim_HTSim; names from astra-sim's
 * build/ scripts and the CMakeLists.txt files under astra-sim/network_frontend).  Here:
 *   - `--astra-binary NAME` maps an analytical binary onto our backend and
 *     explains what to use for the ns-3, HTSim and Garnet binaries;
 *   - a pre-scan of the arguments refuses --astra-binary against a different
 *     --backend (or --set run.backend=...), naming both flags;
 *   - the frontend flags of the ns-3 and HTSim binaries, which clustersim
 *     does not have, get a message saying what to use instead;
 *   - file names that suggest the other analytical backend (ASTRA-sim's
 *     examples keep them under .../congestion_aware/ and
 *     .../congestion_unaware/) warn when the run uses the other one.
 * Nothing here owns memory; errors go to the caller in a cs_error, hints to cs_warn.
 */
#define _GNU_SOURCE /* strcasestr */
#include <string.h>
#include <strings.h>

#include "cli/cli_int.h"
#include "core/log.h"

#define ANA "analytical"
#define ANA_CONG "analytical-congestion"

static const char NS3_INSTEAD[] =
    "ASTRA-sim's ns-3 backend; clustersim has no ns-3: use --backend packet (packet-level RoCEv2: shared-buffer "
    "switches, PFC, ECN, DCQCN/DCTCP/TIMELY/HPCC, the closest to ns-3's model) or --backend flow (max-min fair "
    "flows, much faster), with the physical network as --topology FILE (docs/topology.md) and its dimensions as a "
    "network YAML (--network-configuration; docs/config.md)";
static const char HTSIM_INSTEAD[] =
    "ASTRA-sim's HTSim backend; clustersim has no HTSim: use --backend packet (packet-level) or --backend flow "
    "(flow-level), with the physical network as --topology FILE (docs/topology.md; a fat tree: builder "
    "\"fat-tree\") and the dimensions as a network YAML (--network-configuration; docs/config.md)";
static const char GARNET_INSTEAD[] =
    "ASTRA-sim's Garnet (gem5) backend; clustersim has no Garnet: use --backend packet or --backend flow with "
    "the physical network as --topology FILE (docs/topology.md)";

static const struct astra_bin {
    const char *name;    /* the binary's file name */
    const char *backend; /* ours, or NULL */
    const char *instead; /* backend NULL: what to use */
} BINS[] = {
    {"AstraSim_Analytical_Congestion_Unaware", ANA, NULL},
    {"AnalyticalAstra", ANA, NULL}, /* build/astra_analytical/build.sh's backward-compatibility link */
    {"AstraSim_Analytical_Congestion_Aware", ANA_CONG, NULL},
    {"AstraCongestion", ANA_CONG, NULL}, /* the same script's link for the congestion-aware binary */
    {"AstraSim_NS3", NULL, NS3_INSTEAD},
    {"AstraSimNetwork", NULL, NS3_INSTEAD}, /* the ns-3 program's name (./waf --run scratch/AstraSimNetwork) */
    {"AstraSim_HTSim", NULL, HTSIM_INSTEAD},
    {"gem5.opt", NULL, GARNET_INSTEAD},
};
#define NBINS (sizeof BINS / sizeof BINS[0])

const char *cs_cli_astra_backend(const char *binary, char *msg, size_t n) {
    const char *base = strrchr(binary, '/');
    base = base ? base + 1 : binary;
    for (size_t i = 0; i < NBINS; i++)
        if (strcasecmp(base, BINS[i].name) == 0) {
            if (BINS[i].backend) return BINS[i].backend;
            snprintf(msg, n, "--astra-binary %s: %s is %s", binary, base, BINS[i].instead);
            return NULL;
        }
    /* ns-3's build names the program ns3.<version>-AstraSimNetwork-<profile> */
    if (strncasecmp(base, "ns3", 3) == 0 && strcasestr(base, "AstraSimNetwork")) {
        snprintf(msg, n, "--astra-binary %s: %s is %s", binary, base, NS3_INSTEAD);
        return NULL;
    }
    snprintf(msg, n,
             "--astra-binary %s: expected one of ASTRA-sim's binaries: AstraSim_Analytical_Congestion_Unaware "
             "(--backend analytical), AstraSim_Analytical_Congestion_Aware (--backend analytical-congestion); "
             "AstraSim_NS3 / ns3.*-AstraSimNetwork-*, AstraSim_HTSim and gem5.opt (Garnet) have no equivalent "
             "(--backend packet or flow)",
             binary);
    return NULL;
}

/* The value of flag `name` at argv[*i] ("--name=v" or "--name v"), or NULL. */
static const char *flag_value(int argc, char **argv, int *i, const char *name) {
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] == '\0' && *i + 1 < argc) return argv[++*i];
    return NULL;
}

int cs_cli_astra_prescan(int argc, char **argv, cs_error *err) {
    const char *binary = NULL, *backend = NULL, *backend_flag = "--backend";
    for (int i = 0; i < argc; i++) {
        const char *v;
        if ((v = flag_value(argc, argv, &i, "--astra-binary")) != NULL) {
            binary = v;
        } else if ((v = flag_value(argc, argv, &i, "--backend")) != NULL) {
            backend = v;
            backend_flag = "--backend";
        } else if ((v = flag_value(argc, argv, &i, "--set")) != NULL && strncmp(v, "run.backend=", 12) == 0) {
            backend = v + 12;
            backend_flag = "--set run.backend=";
        }
    }
    if (!binary) return 0;
    char msg[1024];
    const char *mapped = cs_cli_astra_backend(binary, msg, sizeof msg);
    if (!mapped) return CS_ERR(err, CS_EINVAL, "%s", msg);
    if (backend && strcmp(backend, mapped) != 0)
        return CS_ERR(err, CS_EINVAL,
                      "--astra-binary %s selects --backend %s, but %s%s%s was given; expected only one of "
                      "--astra-binary and --backend (or both naming the same backend)",
                      binary, mapped, backend_flag, strcmp(backend_flag, "--backend") == 0 ? " " : "", backend);
    return CS_OK;
}

/* ---- the ns-3 and HTSim frontends' flags ------------------------------------------------ */

static const struct foreign_flag {
    const char *name;
    const char *what;
} FOREIGN[] = {
    {"logical-topology-configuration",
     "a flag of ASTRA-sim's ns-3 frontend (ns3.42-AstraSimNetwork-default): the logical dimensions of the ns-3 "
     "network ({\"logical-dims\": [...]}); clustersim has no ns-3 backend: give the dimensions as a network YAML "
     "(--network-configuration: topology, npus_count, bandwidth, latency; docs/config.md) and, for a packet-level "
     "network, --backend packet (or flow) with the physical network as --topology FILE (docs/topology.md)"},
    {"htsim_opts",
     "a flag of ASTRA-sim's HTSim frontend (AstraSim_HTSim: options passed to htsim, e.g. -topo FILE); clustersim "
     "has no HTSim: use --backend packet (or flow) with the physical network as --topology FILE "
     "(docs/topology.md; a fat tree: builder \"fat-tree\")"},
    {"htsim-proto",
     "a flag of ASTRA-sim's HTSim frontend (its transport protocol); clustersim has no HTSim: use --backend packet "
     "and choose the congestion control with --set backend.packet.cc=NAME (docs/network.md)"},
};

int cs_cli_astra_foreign_flag(const char *name, size_t len, cs_error *err) {
    for (size_t i = 0; i < sizeof FOREIGN / sizeof FOREIGN[0]; i++)
        if (strlen(FOREIGN[i].name) == len && strncmp(FOREIGN[i].name, name, len) == 0)
            return CS_ERR(err, CS_EINVAL, "--%s: %s", FOREIGN[i].name, FOREIGN[i].what);
    return CS_OK;
}

/* ---- file names that suggest the other analytical backend -------------------------------- */

/* ANA_CONG, ANA, or NULL: the backend a path's name suggests.  The
 * congestion-unaware spellings first ("non-congestion" contains "congestion"). */
static const char *path_suggests(const char *path) {
    static const char *const unaware[] = {"congestion_unaware", "congestion-unaware", "congestionunaware",
                                          "non-congestion", "non_congestion", "noncongestion"};
    static const char *const aware[] = {"congestion_aware", "congestion-aware", "congestionaware", "/congestion/"};
    for (size_t i = 0; i < sizeof unaware / sizeof *unaware; i++)
        if (strcasestr(path, unaware[i])) return ANA;
    for (size_t i = 0; i < sizeof aware / sizeof *aware; i++)
        if (strcasestr(path, aware[i])) return ANA_CONG;
    if (strncasecmp(path, "congestion/", 11) == 0) return ANA_CONG;
    return NULL;
}

void cs_cli_astra_hints(const cs_scenario *sc, int argc, char **argv) {
    static const char *const files[] = {"--network-configuration", "--system-configuration",
                                        "--workload-configuration", "--remote-memory-configuration",
                                        "--comm-group-configuration", "--scenario"};
    char eff[64];
    if (cs_scenario_get(sc, "run.backend", eff, sizeof eff) != 0) return;
    const char *backend = strcmp(eff, "\"" ANA "\"") == 0        ? ANA
                          : strcmp(eff, "\"" ANA_CONG "\"") == 0 ? ANA_CONG
                                                                 : NULL;
    if (!backend) return; /* flow, packet: no analytical twin */
    for (int i = 0; i < argc; i++)
        for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
            const char *v = flag_value(argc, argv, &i, files[f]);
            if (!v) continue;
            const char *s = path_suggests(v);
            if (!s || strcmp(s, backend) == 0) break;
            int aware = strcmp(s, ANA_CONG) == 0;
            cs_warn("%s %s: the path suggests ASTRA-sim's congestion-%s backend (%s), but this run uses --backend "
                    "%s (congestion-%s); for the congestion-%s model use --backend %s (or --astra-binary %s)",
                    files[f], v, aware ? "aware" : "unaware",
                    aware ? "AstraSim_Analytical_Congestion_Aware" : "AstraSim_Analytical_Congestion_Unaware",
                    backend, aware ? "unaware" : "aware", aware ? "aware" : "unaware", s,
                    aware ? "AstraSim_Analytical_Congestion_Aware" : "AstraSim_Analytical_Congestion_Unaware");
            break;
        }
}
