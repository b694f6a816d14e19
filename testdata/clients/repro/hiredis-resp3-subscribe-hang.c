// repro: hiredis redisCommandArgv(SUBSCRIBE) on a RESP3 context (HELLO 3) never returns: the confirmation is a push frame (>), which a context hands to its push callback (redisPushAutoFree by default, hiredis.c redisConnectWithOptions) instead of returning it, and the call waits for a reply that never comes.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [hiredis-1.2.0/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [hiredis-1.2.0/resp3]
// finds: pubsub/SSUBSCRIBE confirmation [hiredis-1.2.0/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [hiredis-1.2.0/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [hiredis-1.2.0/pipeline/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [hiredis-1.2.0/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [hiredis-1.2.0/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [hiredis-1.2.0/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [hiredis-1.2.0/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [hiredis-1.2.0/resp3]
// finds: pushes/message push between two replies on a subscribed connection [hiredis-1.2.0/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [hiredis-1.2.0/resp3]
// finds: pubsub/PING on a subscribed connection, a pong array in RESP2 and a simple string in RESP3 [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/PSUBSCRIBE confirmation [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/SSUBSCRIBE confirmation [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/a transaction on one connection while another is subscribed [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/messages with an empty payload and a binary payload holding CR LF and NUL [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pushes/message push between two replies on a subscribed connection [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [hiredis-1.2.0/resp3]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp3]
// run: c
// expect: RESP3 SUBSCRIBE HANG: no result after 2s\n
#include "lib.h"

int main(int argc, char **argv) {
    parse_addr(argc, argv);
    redisContext *c = client(3);
    step("RESP3 SUBSCRIBE", c, ARGV("SUBSCRIBE", "repro:ch"));
    return 0;
}
