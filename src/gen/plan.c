/*
 * plan.c -- parallelism plans: defaults, family-independent checks, rank
 * placement (coordinates <-> rank), the symmetric axes of class mode, and
 * the communicator groups.  The group-id arithmetic lives in one function,
 * cs_gen_group_of; the group file (cs_gen_comm_groups) and every rank's
 * pg_name (emit.c) are both built from it.  See gen.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/checked.h"
#include "gen/gen_int.h"

void cs_gen_plan_defaults(cs_gen_plan *p) {
    memset(p, 0, sizeof *p);
    p->tp = p->pp = p->dp = p->ep = p->cp = 1;
    p->cp_comm = CS_CP_ALLGATHER;
    p->schedule = CS_SCHED_1F1B;
    p->micro_batch = 1;
    p->bucket_params = 40000000;
    p->vstages = 1;
    p->order[0] = CS_DIM_TP;
    p->order[1] = CS_DIM_CP;
    p->order[2] = CS_DIM_DP;
    p->order[3] = CS_DIM_PP;
}

uint32_t cs_gen_cp(const cs_gen_plan *p) { return p->cp ? p->cp : 1; }
uint32_t cs_gen_vst(const cs_gen_plan *p) { return p->vstages ? p->vstages : 1; }

/* fp32 gradients: Megatron's distributed optimizer, FSDP with reduce_dtype fp32 */
double cs_gen_grad_bytes(const cs_gen_plan *p) { return p->dist_opt || p->fsdp_fp32_grads || p->grad_acc_fusion ? 4 : 2; }
int cs_gen_hsdp(const cs_gen_plan *p) {
    return p->fsdp_strategy == CS_FSDP_HYBRID_SHARD || p->fsdp_strategy == CS_FSDP_HYBRID_SHARD_ZERO2;
}
int cs_gen_zero2_like(const cs_gen_plan *p) {
    return p->fsdp_strategy == CS_FSDP_SHARD_GRAD_OP || p->fsdp_strategy == CS_FSDP_HYBRID_SHARD_ZERO2;
}
int cs_gen_gathers(const cs_gen_plan *p) { return p->zero >= 3 || cs_gen_zero2_like(p); }
double cs_gen_shard_ranks(const cs_gen_plan *p) {
    return cs_gen_hsdp(p) ? (double)p->hsdp_shard : cs_gen_dp_ranks(p);
}

uint32_t cs_gen_ranks(const cs_gen_plan *p) { return p->tp * cs_gen_cp(p) * p->dp * p->pp; }

/* The plan's order, or the default if it is not a permutation. */
static void plan_order(const cs_gen_plan *p, uint8_t o[CS_GEN_NDIMS]) {
    static const uint8_t def[CS_GEN_NDIMS] = {CS_DIM_TP, CS_DIM_CP, CS_DIM_DP, CS_DIM_PP};
    int seen = 0;
    for (int i = 0; i < CS_GEN_NDIMS; i++) seen |= p->order[i] < CS_GEN_NDIMS ? 1 << p->order[i] : 1 << CS_GEN_NDIMS;
    for (int i = 0; i < CS_GEN_NDIMS; i++) o[i] = seen == (1 << CS_GEN_NDIMS) - 1 ? p->order[i] : def[i];
}

static void plan_sizes(const cs_gen_plan *p, uint32_t size[CS_GEN_NDIMS]) {
    size[CS_DIM_TP] = p->tp;
    size[CS_DIM_DP] = p->dp;
    size[CS_DIM_PP] = p->pp;
    size[CS_DIM_CP] = cs_gen_cp(p);
}

static void plan_strides(const cs_gen_plan *p, uint32_t st[CS_GEN_NDIMS]) {
    uint8_t o[CS_GEN_NDIMS];
    uint32_t size[CS_GEN_NDIMS], x = 1;
    plan_sizes(p, size);
    plan_order(p, o);
    for (int i = 0; i < CS_GEN_NDIMS; i++) {
        st[o[i]] = x;
        x *= size[o[i]];
    }
}

uint32_t cs_gen_rank_of(const cs_gen_plan *p, const uint32_t c[CS_GEN_NDIMS]) {
    uint32_t st[CS_GEN_NDIMS], r = 0;
    plan_strides(p, st);
    for (int i = 0; i < CS_GEN_NDIMS; i++) r += c[i] * st[i];
    return r;
}

uint32_t cs_gen_rank_at(const cs_gen_plan *p, uint32_t ti, uint32_t di, uint32_t pi, uint32_t ci) {
    uint32_t c[CS_GEN_NDIMS];
    c[CS_DIM_TP] = ti;
    c[CS_DIM_DP] = di;
    c[CS_DIM_PP] = pi;
    c[CS_DIM_CP] = ci;
    return cs_gen_rank_of(p, c);
}

void cs_gen_rank_coords(const cs_gen_plan *p, uint32_t rank, uint32_t c[CS_GEN_NDIMS]) {
    uint32_t st[CS_GEN_NDIMS], size[CS_GEN_NDIMS];
    plan_strides(p, st);
    plan_sizes(p, size);
    for (int i = 0; i < CS_GEN_NDIMS; i++) c[i] = rank / st[i] % size[i];
}

int cs_gen_sym_axes(const cs_gen_plan *p, cs_sym_axes *out) {
    uint32_t st[CS_GEN_NDIMS];
    plan_strides(p, st);
    uint32_t n = cs_gen_ranks(p);
    memset(out, 0, sizeof *out);
    if (p->tp > 1 && p->tp < n) {
        out->stride[out->n] = st[CS_DIM_TP];
        out->size[out->n++] = p->tp;
    }
    /* The DP axis moves whole blocks of B consecutive DP indices: B = ep
     * (the EP groups are blocks of the DP axis, the expert-DP groups one
     * index per block), B = the shard size with HSDP (shard groups are
     * blocks, replicate groups one index per block), else 1.  A move by B s
     * maps each block onto a block and each group onto a group of its kind;
     * the DP group (with cp > 1 the DP x CP group, member di * cp + ci) is
     * then B x cp orbits of the axis, in file order member j = member
     * (j mod B cp) moved j / (B cp) steps, which class mode mirrors
     * (system/symmetry.c); the EP, shard and CP groups of a representative
     * hold representatives only and run for real, as do ring attention's
     * messages.  With dp = 1 and K/V all-gathered the CP axis instead: the
     * DP x CP group is the CP group, one axis. */
    uint32_t B = p->ep > 1 ? p->ep : cs_gen_hsdp(p) ? p->hsdp_shard : 1;
    if (B >= 1 && p->dp % B == 0 && p->dp / B > 1 && p->dp / B < n) {
        out->stride[out->n] = st[CS_DIM_DP] * B;
        out->size[out->n++] = p->dp / B;
    }
    if (cs_gen_cp(p) > 1 && cs_gen_cp(p) < n && p->dp == 1 && p->cp_comm == CS_CP_ALLGATHER) {
        out->stride[out->n] = st[CS_DIM_CP];
        out->size[out->n++] = cs_gen_cp(p);
    }
    return out->n;
}

static const char *const dim_name[CS_GEN_NDIMS] = {"tp", "dp", "pp", "cp"};

int cs_gen_placement_parse(const char *s, cs_gen_plan *p, cs_error *err) {
    uint8_t o[CS_GEN_NDIMS];
    int seen = 0, n = 0;
    const char *c = s;
    while (n < CS_GEN_NDIMS) {
        size_t len = strcspn(c, ",");
        int d = -1;
        for (int k = 0; k < CS_GEN_NDIMS; k++)
            if (len == 2 && strncasecmp(c, dim_name[k], 2) == 0) d = k;
        if (d < 0 || (seen & (1 << d))) break;
        seen |= 1 << d;
        o[n++] = (uint8_t)d;
        c += len;
        if (*c != ',') break;
        c++;
    }
    int full = (1 << CS_GEN_NDIMS) - 1, no_cp = full & ~(1 << CS_DIM_CP);
    if (*c || (seen != full && seen != no_cp))
        return CS_ERR(err, CS_EINVAL,
                      "--placement %s: expected tp, dp and pp (and cp) once each, innermost first (e.g. tp,cp,dp,pp "
                      "or tp,dp,pp)", s);
    if (seen == no_cp) { /* cp just outside tp */
        uint8_t q[CS_GEN_NDIMS];
        int k = 0;
        for (int i = 0; i < 3; i++) {
            q[k++] = o[i];
            if (o[i] == CS_DIM_TP) q[k++] = CS_DIM_CP;
        }
        memcpy(o, q, sizeof o);
    }
    memcpy(p->order, o, sizeof o);
    return CS_OK;
}

void cs_gen_placement_format(const cs_gen_plan *p, char *buf, size_t n) {
    static const char *up[CS_GEN_NDIMS] = {"TP", "DP", "PP", "CP"};
    uint8_t o[CS_GEN_NDIMS], v[CS_GEN_NDIMS];
    uint32_t st[CS_GEN_NDIMS];
    int k = 0;
    plan_order(p, o);
    plan_strides(p, st);
    for (int i = 0; i < CS_GEN_NDIMS; i++)
        if (o[i] != CS_DIM_CP || cs_gen_cp(p) > 1) v[k++] = o[i]; /* without context parallelism, three dimensions */
    size_t len = (size_t)snprintf(buf, n, "rank = %s_i", dim_name[v[0]]);
    for (int i = 1; i < k && len < n; i++) len += (size_t)snprintf(buf + len, n - len, " + %u %s_i", st[v[i]], dim_name[v[i]]);
    for (int i = 0; i < k && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s%s", i == 0 ? ": " : ", then ", up[v[i]], i == 0 ? " innermost" : "");
    if (len < n) len += (size_t)snprintf(buf + len, n - len, " (--placement ");
    for (int i = 0; i < k && len < n; i++) len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", dim_name[v[i]]);
    if (len < n) snprintf(buf + len, n - len, ")");
}

uint32_t cs_gen_micro_batches(const cs_gen_plan *p) {
    uint64_t per_step = (uint64_t)p->micro_batch * p->dp; /* 64 bits: it may pass 2^32 */
    return per_step ? (uint32_t)(p->global_batch / per_step) : 0;
}

double cs_gen_dp_ranks(const cs_gen_plan *p) { return (double)p->dp * cs_gen_cp(p); }
double cs_gen_edp_ranks(const cs_gen_plan *p) { return p->ep > 1 ? (double)p->dp / p->ep : cs_gen_dp_ranks(p); }

int cs_gen_check_batch(const cs_gen_plan *p, cs_error *err) {
    if (!p->micro_batch) return CS_ERR(err, CS_EINVAL, "--micro-batch: expected an integer >= 1");
    uint64_t per_step = (uint64_t)p->micro_batch * p->dp; /* a 32-bit product wraps (to 0: SIGFPE) */
    if (!p->global_batch) /* the family's default did not fit 32 bits */
        return CS_ERR(err, CS_EINVAL,
                      "--global-batch: expected 1 to 4294967295 samples, a multiple of micro-batch x dp (%u x %u = "
                      "%" PRIu64 "); the default for this plan passes 2^32 - 1",
                      p->micro_batch, p->dp, per_step);
    if (p->global_batch % per_step)
        return CS_ERR(err, CS_EINVAL,
                      "--global-batch %u: expected a multiple of micro-batch x dp (%u x %u = %" PRIu64 ")",
                      p->global_batch, p->micro_batch, p->dp, per_step);
    return CS_OK;
}

void cs_gen_plan_batch(const cs_gen_model *m, cs_gen_plan *p, uint32_t micro, uint32_t global) {
    m->family->batch(m, p, micro, global);
}

/* What holds for every family; then the family's own checks. */
int cs_gen_plan_check(const cs_gen_model *m, const cs_gen_plan *p, cs_error *err) {
    const cs_model_family *fam = m->family;
    if (!p->tp || !p->pp || !p->dp) return CS_ERR(err, CS_EINVAL, "--tp/--pp/--dp: expected integers >= 1");
    /* before any family multiplies two degrees in 32 bits; group ids (at
     * most 1 + 4 x ranks) fit 32 bits too */
    uint64_t ranks = cs_mul_u64_sat(cs_mul_u64_sat(cs_mul_u64_sat(p->tp, cs_gen_cp(p)), p->pp), p->dp);
    if (ranks > CS_GEN_MAX_RANKS) {
        char n[32];
        if (ranks == UINT64_MAX) snprintf(n, sizeof n, "more than 2^64");
        else snprintf(n, sizeof n, "%" PRIu64, ranks);
        return CS_ERR(err, CS_EINVAL, "--tp x --cp x --pp x --dp = %u x %u x %u x %u = %s ranks; expected at most %u (2^30)",
                      p->tp, cs_gen_cp(p), p->pp, p->dp, n, CS_GEN_MAX_RANKS);
    }
    if (cs_gen_cp(p) > 1 && !fam->context_parallel)
        return CS_ERR(err, CS_EINVAL, "--cp %u: context parallelism splits a transformer's sequence; %s has none",
                      p->cp, m->name);
    if (p->cp_comm != CS_CP_ALLGATHER && p->cp_comm != CS_CP_P2P)
        return CS_ERR(err, CS_EINVAL, "--cp-comm: expected allgather or p2p");
    if (p->phase != CS_PHASE_TRAIN && !fam->inference)
        return CS_ERR(err, CS_EINVAL, "plan.phase %s: serving steps are modelled for transformers; %s is a %s",
                      p->phase == CS_PHASE_PREFILL ? "prefill" : "decode", m->name, fam->name);
    if (cs_gen_vst(p) > 1 && !fam->interleaving)
        return CS_ERR(err, CS_EINVAL,
                      "--virtual-stages %u: interleaving needs a transformer, --pp > 1, --schedule 1f1b and "
                      "--zero 0..2 or an FSDP strategy", p->vstages);
    if (p->dist_opt && (p->zero > 1 || p->fsdp_strategy))
        return CS_ERR(err, CS_EINVAL, "plan.use-distributed-optimizer: Megatron-LM's distributed optimizer shards the "
                      "optimizer state (ZeRO-1); expected plan.zero 0 or 1 and no plan.fsdp-sharding-strategy, got zero %d",
                      p->zero);
    if ((p->async_tp || p->grad_acc_fusion) && !fam->interleaving)
        return CS_ERR(err, CS_EINVAL, "plan.%s: Megatron-LM's linear layers are modelled for transformers; model "
                      "%s is of the %s family",
                      p->async_tp ? "async-tensor-model-parallel-allreduce" : "gradient-accumulation-fusion", m->name,
                      fam->name);
    if (p->grad_acc_fusion && (p->zero > 1 || p->fsdp_strategy)) {
        if (p->fsdp_strategy)
            return CS_ERR(err, CS_EINVAL, "plan.gradient-accumulation-fusion: Megatron-LM's fusion adds into its own "
                          "fp32 gradient buffer; expected no plan.fsdp-sharding-strategy (PyTorch FSDP keeps its own)");
        return CS_ERR(err, CS_EINVAL, "plan.gradient-accumulation-fusion: Megatron-LM's fusion adds into its own fp32 "
                      "gradient buffer; expected plan.zero 0 or 1, got %d", p->zero);
    }
    if (p->fsdp_strategy) {
        static const char *nm[] = {"", "FULL_SHARD", "SHARD_GRAD_OP", "HYBRID_SHARD", "_HYBRID_SHARD_ZERO2"};
        if (p->fsdp_strategy < 0 || p->fsdp_strategy > CS_FSDP_HYBRID_SHARD_ZERO2)
            return CS_ERR(err, CS_EINVAL, "plan.fsdp-sharding-strategy: expected FULL_SHARD, SHARD_GRAD_OP, "
                          "HYBRID_SHARD or _HYBRID_SHARD_ZERO2");
        int want = cs_gen_zero2_like(p) ? 2 : 3;
        if (cs_gen_hsdp(p) && (!p->hsdp_shard || p->dp % p->hsdp_shard))
            return CS_ERR(err, CS_EINVAL, "plan.hsdp-shard-size %u: %s shards within groups of consecutive DP ranks; "
                          "expected a divisor of plan.dp (%u)", p->hsdp_shard, nm[p->fsdp_strategy], p->dp);
        if (cs_gen_hsdp(p) && (cs_gen_cp(p) > 1 || p->ep > 1))
            return CS_ERR(err, CS_EINVAL, "plan.fsdp-sharding-strategy %s: HSDP with context or expert parallelism "
                          "is not modelled; expected plan.cp 1 and plan.ep 1", nm[p->fsdp_strategy]);
        if (p->zero != want)
            return CS_ERR(err, CS_EINVAL, "plan.fsdp-sharding-strategy %s: is ZeRO-%d; expected plan.zero %d or unset, "
                          "got %d", nm[p->fsdp_strategy], want, want, p->zero);
        if (!fam->interleaving)
            return CS_ERR(err, CS_EINVAL, "plan.fsdp-sharding-strategy %s: FSDP's per-layer schedule is modelled for "
                          "transformers; %s is a %s (use plan.zero)", nm[p->fsdp_strategy], m->name, fam->name);
        if (cs_gen_zero2_like(p) && !p->fsdp_no_sync && p->pp > 1)
            return CS_ERR(err, CS_EINVAL, "plan.fsdp-sharding-strategy %s with plan.pp %u: which of its "
                          "gathers run depends on how the pipeline overlaps micro-batches; expected plan.pp 1, or "
                          "plan.fsdp-no-sync (parameters kept for the whole step, Llama 3's schedule)",
                          nm[p->fsdp_strategy], p->pp);
    } else if (p->fsdp_no_sync) {
        return CS_ERR(err, CS_EINVAL, "plan.fsdp-no-sync: FSDP's no_sync() needs a plan.fsdp-sharding-strategy");
    } else if (p->fsdp_fp32_grads) {
        return CS_ERR(err, CS_EINVAL, "plan.fsdp-reduce-dtype fp32: FSDP's reduce dtype needs a "
                      "plan.fsdp-sharding-strategy");
    }
    if (p->hsdp_shard && !cs_gen_hsdp(p))
        return CS_ERR(err, CS_EINVAL, "plan.hsdp-shard-size: needs plan.fsdp-sharding-strategy HYBRID_SHARD or "
                      "_HYBRID_SHARD_ZERO2");
    if (p->nlayout && !fam->interleaving)
        return CS_ERR(err, CS_EINVAL, "plan.layout: a layout of decoder layers needs a transformer; %s is a %s",
                      m->name, fam->name);
    if (p->nlayout > CS_GEN_MAX_LAYOUT)
        return CS_ERR(err, CS_EINVAL, "plan.layout: %u stages; expected at most %u", p->nlayout, CS_GEN_MAX_LAYOUT);
    int rc = cs_gen_ingest_check(p, err);
    return rc ? rc : fam->check(m, p, err);
}

/* ---- communicator groups ------------------------------------------------ */

uint32_t cs_gen_group_of(const cs_gen_plan *p, int kind, const uint32_t c[CS_GEN_NDIMS], uint32_t *member) {
    uint32_t cp = cs_gen_cp(p), ep = p->ep ? p->ep : 1, edp = p->dp / ep;
    uint32_t ti = c[CS_DIM_TP], di = c[CS_DIM_DP], pi = c[CS_DIM_PP], ci = c[CS_DIM_CP];
    uint32_t ntp = p->pp * p->dp * cp, ndp = p->pp * p->tp, pt = pi * p->tp + ti;
    uint32_t base_ep = 1 + ntp + ndp, dummy, S = p->hsdp_shard ? p->hsdp_shard : 1, nsh = ndp * (p->dp / S);
    if (!member) member = &dummy;
    switch (kind) {
    case PG_TP: *member = ti; return 1 + (pi * p->dp + di) * cp + ci;
    case PG_CP: *member = ci; return 1 + ntp + ndp + (pi * p->dp + di) * p->tp + ti;
    /* HSDP (cp = ep = 1: no EP, expert-DP or CP groups before these) */
    case PG_SH: *member = di % S; return 1 + ntp + ndp + pt * (p->dp / S) + di / S;
    case PG_RP: *member = di / S; return 1 + ntp + ndp + nsh + pt * S + di % S;
    case PG_EP: *member = di % ep; return base_ep + pt * edp + di / ep;
    case PG_EDP:
        if (ep > 1) {
            *member = di / ep;
            return base_ep + ndp * edp + pt * ep + di % ep;
        }
        break; /* the DP group */
    default: break;
    }
    *member = di * cp + ci; /* PG_DP */
    return 1 + ntp + pt;
}

/* Every rank into its slot of each of its groups (ids are 1-based and
 * dense: TP, DP, then EP and expert-DP with ep > 1, CP with cp > 1). */
void cs_gen_comm_groups(const cs_gen_plan *p, cs_comm_groups *out) {
    memset(out, 0, sizeof *out);
    uint32_t cp = cs_gen_cp(p), ep = p->ep ? p->ep : 1, edp = p->dp / ep;
    size_t ntp = (size_t)p->pp * p->dp * cp, ndp = (size_t)p->pp * p->tp;
    size_t nep = ep > 1 ? ndp * edp : 0, nedp = ep > 1 ? ndp * ep : 0;
    size_t ncp = cp > 1 ? (size_t)p->pp * p->dp * p->tp : 0;
    uint32_t S = cs_gen_hsdp(p) ? p->hsdp_shard : 0;
    size_t nsh = S ? ndp * (p->dp / S) : 0, nrp = S ? ndp * S : 0;
    int kinds[PG_N], nk = 0;
    uint32_t size[PG_N];
    size[PG_TP] = p->tp;
    size[PG_DP] = p->dp * cp;
    size[PG_EP] = ep;
    size[PG_EDP] = edp;
    size[PG_CP] = cp;
    size[PG_SH] = S;
    size[PG_RP] = S ? p->dp / S : 0;
    kinds[nk++] = PG_TP;
    kinds[nk++] = PG_DP;
    if (ep > 1) {
        kinds[nk++] = PG_EP;
        kinds[nk++] = PG_EDP;
    }
    if (cp > 1) kinds[nk++] = PG_CP;
    if (S) {
        kinds[nk++] = PG_SH;
        kinds[nk++] = PG_RP;
    }
    out->ngroups = ntp + ndp + nep + nedp + ncp + nsh + nrp;
    out->groups = cs_calloc(out->ngroups, sizeof *out->groups);
    uint32_t n = cs_gen_ranks(p), c[CS_GEN_NDIMS];
    for (uint32_t r = 0; r < n; r++) {
        cs_gen_rank_coords(p, r, c);
        for (int k = 0; k < nk; k++) {
            uint32_t i, g = cs_gen_group_of(p, kinds[k], c, &i) - 1;
            cs_comm_group *cg = &out->groups[g];
            if (!cg->ranks) {
                char name[24];
                snprintf(name, sizeof name, "%u", g + 1);
                cg->name = cs_strdup(name);
                cg->id = g + 1;
                cg->nranks = size[kinds[k]];
                cg->ranks = cs_malloc(cg->nranks * sizeof *cg->ranks);
                cg->rank_lines = cs_calloc(cg->nranks, sizeof *cg->rank_lines);
            }
            cg->ranks[i] = r;
        }
    }
}

int cs_gen_comm_groups_write(const cs_comm_groups *g, const char *path, cs_error *err) {
    FILE *f = fopen(path, "w");
    if (!f) return CS_ERR(err, CS_EIO, "%s: cannot write", path);
    fputs("{\n", f);
    for (size_t i = 0; i < g->ngroups; i++) {
        fprintf(f, "  \"%s\": [", g->groups[i].name);
        for (uint32_t k = 0; k < g->groups[i].nranks; k++) fprintf(f, "%s%u", k ? ", " : "", g->groups[i].ranks[k]);
        fprintf(f, "]%s\n", i + 1 < g->ngroups ? "," : "");
    }
    fputs("}\n", f);
    if (fclose(f) != 0) return CS_ERR(err, CS_EIO, "%s: cannot write", path);
    return CS_OK;
}
