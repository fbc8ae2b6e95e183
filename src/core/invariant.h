/*
 * invariant.h -- CS_ALWAYS / CS_NEVER: assertions of the simulator's own
 * invariants at its state transitions (a chunk finishes once, a link never
 * carries more than its bandwidth, a message is delivered once, ...).  A
 * violated one is a clustersim bug, never a user error: user input is
 * refused with a located cs_error (core/error.h) before it can break one.
 *
 *   CS_ALWAYS(cond, fmt, ...)  cond must hold here
 *   CS_NEVER(cond, fmt, ...)   cond must not hold here
 *   CS_UNREACHABLE(fmt, ...)   this point is never reached (a state machine's
 *                              event that no transition takes)
 *
 * Active when the build defines CS_INVARIANTS (CMake: every CS_SANITIZE=ON
 * build, or -DCS_INVARIANTS=ON): a violation prints
 *     clustersim: invariant violated at src/FILE.c:LINE: <cond>: <message>
 * to stderr and aborts.  Without CS_INVARIANTS they compile to nothing: the
 * condition and the message arguments are type-checked (inside `if (0)`) but
 * never evaluated, so an invariant may call something costly.  State kept
 * only for invariants (a per-node issue flag, ...) sits under
 * `#ifdef CS_INVARIANTS` where it is declared.
 *
 * Like <assert.h>, this header may be included again after CS_INVARIANTS is
 * defined or undefined: the macros follow the latest inclusion (the unit
 * test tests/test_core_invariant.c uses both forms in one file).
 * docs/testing.md ("Invariants") lists where they are.
 */
#ifndef CS_CORE_INVARIANT_H
#define CS_CORE_INVARIANT_H

/* Print the violation (file as from __FILE__, shortened to the source tree)
 * and abort(). */
_Noreturn void cs_invariant_fail(const char *file, int line, const char *cond, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* CS_CORE_INVARIANT_H */

/* The macros, outside the include guard (see above). */
#undef CS_ALWAYS
#undef CS_NEVER
#undef CS_UNREACHABLE
#ifdef CS_INVARIANTS
#define CS_ALWAYS(cond, ...) \
    do { \
        if (!(cond)) cs_invariant_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
    } while (0)
#define CS_NEVER(cond, ...) \
    do { \
        if (cond) cs_invariant_fail(__FILE__, __LINE__, "never " #cond, __VA_ARGS__); \
    } while (0)
#define CS_UNREACHABLE(...) cs_invariant_fail(__FILE__, __LINE__, "unreachable", __VA_ARGS__)
#else
#define CS_ALWAYS(cond, ...) \
    do { \
        if (0) { \
            (void)(cond); \
            cs_invariant_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
        } \
    } while (0)
#define CS_NEVER(cond, ...) CS_ALWAYS(!(cond), __VA_ARGS__)
#define CS_UNREACHABLE(...) CS_ALWAYS(1, __VA_ARGS__)
#endif
