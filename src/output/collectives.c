/*
 * collectives.c -- collectives.csv and summary.json's "collectives" array
 * (see collectives.h): a row sink streaming to the CSV file and to an
 * anonymous temporary file of JSON entries.
 */
#include "output/collectives.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/afile.h"
#include "core/alloc.h"
#include "output/jsonw.h"
#include "system/coll_type.h"

struct cs_coll_out {
    cs_afile csv;              /* csv.f NULL = none */
    int csv_bad;               /* a write error happened */
    FILE *json;                /* anonymous temporary file, or NULL */
    uint64_t json_cap, json_written;
    uint64_t rows;
};

static void write_csv(FILE *f, const cs_collective_row *w) {
    fprintf(f, "%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%s,%u,%u,%" PRIu64 ",", w->index,
            w->type, w->comm_size_bytes, w->data_bytes, w->communicator, w->group_id,
            w->nranks, w->seq);
    cs_jsonw_ns(f, w->start_ps);
    fputc(',', f);
    cs_jsonw_ns(f, w->end_ps);
    fputc(',', f);
    cs_jsonw_ns(f, w->end_ps - w->start_ps);
    fprintf(f, ",%.6f,%.6f,%u,%u,", w->algbw_gbps, w->busbw_gbps, w->chunks, w->phases);
    for (const char *s = w->algorithms; *s; s++) fputc(*s == ',' ? ';' : *s, f); /* no commas in a field */
    fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", w->bytes_sent, w->bytes_received, w->member_records);
}

/* One row as a JSON object of the "collectives" array (first = no comma). */
static void write_json(FILE *f, const cs_collective_row *w, int first_row) {
    fprintf(f, "%s    {\"collective\": %" PRIu64 ", \"type\": \"%s\", \"comm_size_bytes\": %" PRIu64
               ", \"data_bytes\": %" PRIu64 ", \"communicator\": ",
            first_row ? "" : ",\n", w->index, w->type, w->comm_size_bytes,
            w->data_bytes);
    cs_jsonw_string(f, w->communicator);
    fprintf(f, ", \"group_id\": %u, \"nranks\": %u, \"seq\": %" PRIu64 ", \"start_ns\": ", w->group_id,
            w->nranks, w->seq);
    cs_jsonw_ns(f, w->start_ps);
    fputs(", \"end_ns\": ", f);
    cs_jsonw_ns(f, w->end_ps);
    fputs(", \"duration_ns\": ", f);
    cs_jsonw_ns(f, w->end_ps - w->start_ps);
    fprintf(f, ", \"algbw_gbps\": %.6f, \"busbw_gbps\": %.6f, \"chunks\": %u, \"phases\": %u, \"algorithms\": [",
            w->algbw_gbps, w->busbw_gbps, w->chunks, w->phases);
    const char *s = w->algorithms;
    int first = 1;
    while (*s) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), s);
        fputs(first ? "" : ", ", f);
        cs_jsonw_string(f, name);
        first = 0;
        s += len;
        if (*s == ',') s++;
    }
    fprintf(f, "], \"bytes_sent\": %" PRIu64 ", \"bytes_received\": %" PRIu64 ", \"member_records\": %" PRIu64 "}",
            w->bytes_sent, w->bytes_received, w->member_records);
}

int cs_coll_out_new(const char *csv_path, int json, uint64_t json_cap, cs_coll_out **out, cs_error *err) {
    *out = NULL;
    cs_coll_out *o = cs_calloc(1, sizeof *o);
    o->json_cap = json_cap ? json_cap : CS_COLL_JSON_CAP_DEFAULT;
    if (csv_path) {
        int rc = cs_afile_open(&o->csv, csv_path, err);
        if (rc) {
            cs_free(o);
            return rc;
        }
        fputs(CS_COLL_CSV_HEADER "\n", o->csv.f);
    }
    if (json) {
        o->json = tmpfile();
        if (!o->json) {
            int rc = CS_ERR(err, CS_EIO, "cannot create a temporary file for summary.json's collectives: %s",
                            strerror(errno));
            cs_coll_out_free(o);
            return rc;
        }
    }
    *out = o;
    return CS_OK;
}

void cs_coll_out_row(void *ud, const cs_coll_row *row) {
    cs_coll_out *o = ud;
    cs_collective_row x, *w = &x;
    cs_coll_row_public(row, &x);
    o->rows++;
    if (o->csv.f) write_csv(o->csv.f, w);
    if (o->json && o->json_written < o->json_cap) {
        write_json(o->json, w, o->json_written == 0);
        o->json_written++;
    }
}

int cs_coll_out_finish(cs_coll_out *o, cs_error *err) {
    int rc = cs_afile_commit(&o->csv, err);
    if (o->json && (fflush(o->json) != 0 || ferror(o->json)) && rc == CS_OK)
        rc = CS_ERR(err, CS_EIO, "temporary file for summary.json's collectives: write error: %s", strerror(errno));
    return rc;
}

void cs_coll_out_free(cs_coll_out *o) {
    if (!o) return;
    cs_afile_abort(&o->csv); /* a run that did not finish leaves no collectives.csv */
    if (o->json) fclose(o->json);
    cs_free(o);
}

int cs_coll_out_write_json(const cs_coll_out *o, const cs_result *r, FILE *f, const char *path, cs_error *err) {
    uint64_t count = cs_result_collectives_total(r), written = 0;
    fputs("  \"collectives\": [", f);
    if (o && o->json && o->json_written) {
        fputc('\n', f);
        if (fflush(o->json) != 0 || fseek(o->json, 0, SEEK_SET) != 0)
            return CS_ERR(err, CS_EIO, "%s: cannot read back the collectives: %s", path, strerror(errno));
        char buf[65536];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, o->json)) > 0) fwrite(buf, 1, got, f);
        if (ferror(o->json))
            return CS_ERR(err, CS_EIO, "%s: cannot read back the collectives: %s", path, strerror(errno));
        fseek(o->json, 0, SEEK_END);
        fputs("\n  ", f);
        written = o->json_written;
    } else if (!o && r->nrows) {
        fputc('\n', f);
        for (size_t i = 0; i < r->nrows; i++) write_json(f, &r->rows[i], i == 0);
        fputs("\n  ", f);
        written = r->nrows;
    }
    fprintf(f, "],\n  \"collectives_count\": %" PRIu64 ",\n  \"collectives_truncated\": %" PRIu64 ",\n", count,
            count > written ? count - written : 0);
    return CS_OK;
}
