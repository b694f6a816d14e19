// repro: hiredis's reader has no case for the RESP3 attribute type byte (|, read.c processItem): a reply that carries an attribute (DEBUG PROTOCOL attrib in RESP3) fails with "Protocol error, got "|" as reply type byte", and the context keeps that error: every later call on it (ECHO) fails the same way without a reply.
// finds: attributes/attribute map before a blob string, then an ordinary reply [hiredis-1.2.0/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [hiredis-1.2.0/resp3]
// finds: attributes/two attributed blob strings pipelined [hiredis-1.2.0/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [hiredis-1.2.0/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [hiredis-1.2.0/resp3]
// finds: faults/attribute before a reply [hiredis-1.2.0/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [hiredis-1.2.0/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: attributes/attribute map before a blob string, then an ordinary reply [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: attributes/two attributed blob strings pipelined [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: faults/attribute before a reply [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// run: c
// expect: RESP3 DEBUG PROTOCOL attrib THROWN: err 4: Protocol error, got "\|" as reply type byte\nRESP3 ECHO next THROWN: err 4: Protocol error, got "\|" as reply type byte\n
#include "lib.h"

int main(int argc, char **argv) {
    parse_addr(argc, argv);
    redisContext *c = client(3);
    step("RESP3 DEBUG PROTOCOL attrib", c, ARGV("DEBUG", "PROTOCOL", "attrib"));
    step("RESP3 ECHO next", c, ARGV("ECHO", "next"));
    return 0;
}
