/*
 * test_gen_family.c -- the model-family registry (src/gen/family.h): every
 * family has a unique name, a complete table and help for every model-file
 * key; every preset of every family generates a plan whose matmul FLOPs
 * summed over the ranks equal the family's own closed form (cs_gen_model_
 * flops, docs/generator.md); and a model file that mixes families is
 * refused at the line of the foreign key.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compute/device.h"
#include "gen/family.h"
#include "gen/gen.h"

static int null_sink(void *ud, const struct ChakraProtoMsg__Node *n, cs_error *err) {
    (void)ud, (void)n, (void)err;
    return CS_OK;
}

static void test_registry(void **state) {
    (void)state;
    size_t nf = 0;
    for (; cs_gen_family_at(nf); nf++) {
        const cs_model_family *f = cs_gen_family_at(nf);
        assert_non_null(f->name);
        assert_ptr_equal(cs_gen_family_find(f->name), f);
        for (size_t j = 0; j < nf; j++) assert_string_not_equal(cs_gen_family_at(j)->name, f->name);
        assert_true(f->summary && f->unit && f->unit_json);
        assert_true(f->init && f->finish && f->check && f->params && f->flops && f->memory && f->emit && f->batch &&
                    f->describe && f->items);
        assert_true(f->nkeys > 0 && f->npresets > 0);
        for (size_t k = 0; k < f->nkeys; k++) {
            const cs_opt *o = &f->keys[k];
            if (!o->help || !o->help[0]) fail_msg("family %s: key %s has no help", f->name, o->key);
            for (size_t j = 0; j < k; j++) assert_string_not_equal(f->keys[j].key, o->key);
            assert_string_not_equal(o->key, "name");
            assert_string_not_equal(o->key, "arch");
        }
        for (size_t i = 0; i < f->npresets; i++) assert_ptr_equal(f->presets[i].family, f);
    }
    assert_true(nf >= 3);
    assert_null(cs_gen_family_find("nope"));
    /* the presets, family by family, in registry order */
    size_t i = 0;
    for (size_t k = 0; k < nf; k++)
        for (size_t j = 0; j < cs_gen_family_at(k)->npresets; j++, i++)
            assert_ptr_equal(cs_gen_model_preset_at(i), &cs_gen_family_at(k)->presets[j]);
    assert_null(cs_gen_model_preset_at(i));
}

/* Every preset on a 2-way data-parallel plan with its family's batch
 * defaults: the FLOPs of the generated graphs are the closed form. */
static void test_presets_flops(void **state) {
    (void)state;
    const cs_device *d = cs_device_find("A100-80GB");
    for (size_t i = 0; cs_gen_model_preset_at(i); i++) {
        const cs_gen_model *m = cs_gen_model_preset_at(i);
        cs_gen_plan p;
        cs_gen_plan_defaults(&p);
        p.dp = 2;
        cs_gen_plan_batch(m, &p, 0, 0);
        cs_error err;
        cs_error_clear(&err);
        if (cs_gen_plan_check(m, &p, &err) != CS_OK) fail_msg("%s: %s", m->name, err.msg);
        double sum = 0;
        for (uint32_t r = 0; r < cs_gen_ranks(&p); r++) {
            cs_gen_stats st;
            assert_int_equal(cs_gen_rank(m, &p, d, r, null_sink, NULL, &st, &err), CS_OK);
            sum += st.matmul_flops;
        }
        double want = cs_gen_model_flops(m, &p);
        printf("%-14s %-12s got %.6g want %.6g FLOPs\n", m->name, m->family->name, sum, want);
        assert_true(want > 0 && fabs(sum - want) <= 1e-9 * want);
        assert_true(cs_gen_total_params(m) > 0);
        assert_true(m->family->items(m, &p) >= p.global_batch);
        cs_gen_memory mm;
        cs_gen_memory_worst(m, &p, &mm);
        assert_true(mm.total > 0);
        char buf[4096];
        FILE *f = fmemopen(buf, sizeof buf, "w");
        assert_non_null(f);
        m->family->describe(f, m, &p);
        fclose(f);
        tu_assert_has(buf, m->name);
    }
}

/* Products of plan values in 64 bits: micro-batch x dp beyond 2^32 (it was
 * 0 in 32 bits: a division by zero, SIGFPE), tp x cp beyond 2^32 (the same
 * in the sequence split), micro-batches x virtual stages beyond 2^30 (the
 * interleaved schedule's loop and tags), too many ranks: each refused naming
 * the flags, for every family; and a plan whose nodes would carry values
 * beyond 2^64 (FLOPs, bytes, microseconds) is refused by the generator
 * instead of writing wrapped or saturated numbers. */
static void test_plan_overflow(void **state) {
    (void)state;
    const char *names[] = {"gpt3-6.7b", "llama3-8b", "mixtral-8x7b", "resnet50", "dlrm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const cs_gen_model *m = cs_gen_model_preset(names[i]);
        assert_non_null(m);
        cs_gen_plan p;
        cs_gen_plan_defaults(&p);
        p.dp = 8;
        cs_gen_plan_batch(m, &p, 536870912u, 1000000000u);
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_gen_plan_check(m, &p, &err), CS_EINVAL);
        tu_assert_has(err.msg, "--global-batch 1000000000: expected a multiple of micro-batch x dp "
                               "(536870912 x 8 = 4294967296)");
        assert_int_equal(cs_gen_micro_batches(&p), 0);
    }
    const cs_gen_model *m = cs_gen_model_preset("llama3-8b");
    cs_gen_plan p;
    cs_error err;
    cs_gen_plan_defaults(&p);
    p.tp = p.cp = 65536;
    p.sp = 1;
    cs_gen_plan_batch(m, &p, 1, 1);
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--tp x --cp x --pp x --dp = 65536 x 65536 x 1 x 1 = 4294967296 ranks");
    /* the transformer's default global batch, micro-batch x dp x pp, beyond 2^32 */
    cs_gen_plan_defaults(&p);
    p.dp = 65536;
    p.pp = 32;
    cs_gen_plan_batch(m, &p, 4096, 0);
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--global-batch: the default, micro-batch x dp x pp = 4096 x 65536 x 32 = 8589934592");
    /* interleaving: 2^31 micro-batches x 2 chunks */
    cs_gen_plan_defaults(&p);
    p.pp = 2;
    p.vstages = 2;
    cs_gen_plan_batch(m, &p, 1, 2147483648u);
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(m, &p, &err), CS_EINVAL);
    tu_assert_has(err.msg, "--virtual-stages 2: 2147483648 micro-batches x 2 chunks");
    /* a billion sequences of 2048 tokens on one GPU: 2^64 FLOPs and more per node */
    const cs_device *d = cs_device_find("A100-80GB");
    m = cs_gen_model_preset("gpt3-175b");
    cs_gen_plan_defaults(&p);
    cs_gen_plan_batch(m, &p, 1000000000u, 1000000000u);
    cs_error_clear(&err);
    assert_int_equal(cs_gen_plan_check(m, &p, &err), CS_OK);
    assert_int_equal(cs_gen_rank(m, &p, d, 0, null_sink, NULL, NULL, &err), CS_EINVAL);
    tu_assert_has(err.msg, "exceeds");
    tu_assert_has(err.msg, "--micro-batch 1000000000");
}

/* A key that belongs to another family: refused with file, line and key. */
static void test_foreign_key(void **state) {
    (void)state;
    cs_gen_model m;
    cs_error err;
    cs_error_clear(&err);
    const char *f = tu_write_tmp("rn.json", "{\n  \"arch\": \"resnet50\",\n  \"image\": 224,\n  \"hidden\": 1024\n}\n");
    assert_int_equal(cs_gen_model_load_json(f, &m, &err), CS_EINVAL);
    tu_assert_has(err.msg, "rn.json:4: hidden: a key of transformer models, not of resnet50");
    cs_error_clear(&err);
    f = tu_write_tmp("tf.json", "{\n  \"layers\": 2,\n  \"hidden\": 64,\n  \"heads\": 4,\n  \"vocab\": 128,\n"
                                "  \"seq\": 16,\n  \"tables\": 8\n}\n");
    assert_int_equal(cs_gen_model_load_json(f, &m, &err), CS_EINVAL);
    tu_assert_has(err.msg, "tf.json:7: tables: a key of dlrm models, not of transformer");
    /* without it the file reads, with the family's defaults */
    cs_error_clear(&err);
    f = tu_write_tmp("tf2.json", "{\n  \"layers\": 2,\n  \"hidden\": 64,\n  \"heads\": 4,\n  \"vocab\": 128,\n"
                                 "  \"seq\": 16\n}\n");
    assert_int_equal(cs_gen_model_load_json(f, &m, &err), CS_OK);
    assert_ptr_equal(m.family, cs_gen_family_find("transformer"));
    assert_true(m.u.tf.kv_heads == 4 && m.u.tf.ffn_hidden == 256 && m.u.tf.bias && m.u.tf.tied_embeddings);
    /* an unknown family */
    cs_error_clear(&err);
    f = tu_write_tmp("x.json", "{\n  \"arch\": \"no-such-family\"\n}\n");
    assert_int_equal(cs_gen_model_load_json(f, &m, &err), CS_EINVAL);
    tu_assert_has(err.msg, "x.json:2: arch: expected \"transformer\", \"resnet50\"");
    tu_assert_has(err.msg, ", got \"no-such-family\"");
    /* the engine's messages for a family's keys */
    cs_error_clear(&err);
    f = tu_write_tmp("rn2.json", "{\n  \"arch\": \"resnet50\",\n  \"image\": 100\n}\n");
    assert_int_equal(cs_gen_model_load_json(f, &m, &err), CS_EINVAL);
    tu_assert_has(err.msg, "rn2.json:3: image: expected an integer >= 1 divisible by 32, got 100");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_presets_flops),
        cmocka_unit_test(test_plan_overflow),
        cmocka_unit_test(test_foreign_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
