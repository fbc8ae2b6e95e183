/*
 * jsonw.c -- streaming JSON helpers (see jsonw.h).
 */
#include "output/jsonw.h"

#include <inttypes.h>

/* Length of the valid UTF-8 sequence at s, or 0 if invalid. */
static int utf8_len(const unsigned char *s) {
    unsigned char c = s[0];
    int n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (n == 3 && c == 0xE0 && s[1] < 0xA0) return 0;
    if (n == 3 && c == 0xED && s[1] > 0x9F) return 0; /* surrogates */
    if (n == 4 && c == 0xF0 && s[1] < 0x90) return 0;
    if (n == 4 && c == 0xF4 && s[1] > 0x8F) return 0;
    return n;
}

void cs_jsonw_string(FILE *f, const char *str) {
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    fputc('"', f);
    while (*s) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            s++;
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
            s++;
        } else if (c < 0x80) {
            fputc(c, f);
            s++;
        } else {
            int n = utf8_len(s);
            if (n == 0) {
                fputs("\xEF\xBF\xBD", f);
                s++;
            } else {
                fwrite(s, 1, (size_t)n, f);
                s += n;
            }
        }
    }
    fputc('"', f);
}

/* v in decimal, right-aligned to end at end (no terminator); returns its first character. */
static char *u64_dec(char *end, uint64_t v) {
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

void cs_jsonw_u64(FILE *f, uint64_t v) {
    char buf[24];
    char *b = u64_dec(buf + sizeof buf, v);
    fwrite(b, 1, (size_t)(buf + sizeof buf - b), f);
}

/* (By hand rather than printf: a row of ranks.csv or summary.json holds eight of them, a 1,024-rank run
 * 16,384, and printf's format parsing was a tenth of a small run's CPU; the same text.) */
void cs_jsonw_ns(FILE *f, cs_time t) {
    uint64_t whole = t / 1000, frac = t % 1000;
    char buf[32];
    char *e = buf + sizeof buf, *b;
    if (frac) { /* 3 decimals, trailing zeros dropped: .5, .25, .125 */
        int nd = frac % 100 == 0 ? 1 : frac % 10 == 0 ? 2 : 3;
        uint64_t d = nd == 1 ? frac / 100 : nd == 2 ? frac / 10 : frac;
        for (int i = 0; i < nd; i++, d /= 10) *--e = (char)('0' + d % 10);
        *--e = '.';
    }
    b = u64_dec(e, whole);
    fwrite(b, 1, (size_t)(buf + sizeof buf - b), f);
}

void cs_jsonw_us(FILE *f, cs_time t) {
    fprintf(f, "%" PRIu64 ".%06" PRIu64, t / 1000000, t % 1000000);
}
