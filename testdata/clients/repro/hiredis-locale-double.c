// repro: hiredis's reader parses a RESP3 double with strtod (read.c processLineItem), which reads the decimal separator of the locale a program set with setlocale(LC_ALL, ""): in de_DE.UTF-8 (a comma) strtod stops at the '.' of ",3.141\r\n" (DEBUG PROTOCOL double) and the reader fails with "Bad double value"; the context keeps that error, so the next call (ECHO) fails the same way. In the C locale the same double reads as 3.141.
// finds: aggregates/array of member-score pairs from ZRANGE WITHSCORES in RESP3, a flat array in RESP2 [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: aggregates/map holding a set from a Lua script in RESP3 [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: faults/RESP3 double from DEBUG PROTOCOL [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: faults/ZSCORE inf and -inf [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: faults/double precision of ZINCRBY and a maximal double [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: numbers/doubles at the ends of the range from ZSCORE, the largest and the smallest subnormal [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: numbers/doubles from a Lua script, 3.14 and 1e+100 [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: numbers/doubles needing 17 significant digits from ZINCRBY and ZSCORE [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp2]
// finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: resp3-types/double from DEBUG PROTOCOL double, a blob string in RESP2 [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: transactions/EXEC array of a simple string, an integer, a blob string, a double, an empty map and a set [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// run: c
// expect: C locale RESP3 DEBUG PROTOCOL double DECODED: DOUBLE\("3.141"\)\nde_DE.UTF-8 RESP3 DEBUG PROTOCOL double THROWN: err 4: Bad double value\nde_DE.UTF-8 RESP3 ECHO next THROWN: err 4: Bad double value\n
#include <locale.h>

#include "lib.h"

int main(int argc, char **argv) {
    parse_addr(argc, argv);
    redisContext *c = client(3);
    step("C locale RESP3 DEBUG PROTOCOL double", c, ARGV("DEBUG", "PROTOCOL", "double"));
    // As an application that honours its user's locale does (LOCPATH names
    // where scripts/install-clients.sh compiled it).
    if (setlocale(LC_ALL, "de_DE.UTF-8") == NULL) {
        printf("setlocale de_DE.UTF-8 failed: the locale is not installed\n");
        return 1;
    }
    c = client(3);
    step("de_DE.UTF-8 RESP3 DEBUG PROTOCOL double", c, ARGV("DEBUG", "PROTOCOL", "double"));
    step("de_DE.UTF-8 RESP3 ECHO next", c, ARGV("ECHO", "next"));
    return 0;
}
