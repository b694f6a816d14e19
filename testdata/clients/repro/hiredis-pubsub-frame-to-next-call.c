// repro: hiredis redisCommandArgv(SUBSCRIBE) on a RESP2 context returns the confirmation, then hands the next frame the server sends on the subscribed connection (a published "message") to the next call as its reply, so replies arrive one call late.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [hiredis-1.2.0/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [hiredis-1.2.0/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [hiredis-1.2.0/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [hiredis-1.2.0/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [hiredis-1.2.0/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [hiredis-1.2.0/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [hiredis-1.2.0[LC_ALL=de_DE.UTF-8]/resp2]
// run: c
// expect: (?s)RESP2 SUBSCRIBE DECODED: ARRAY\[STRING\("subscribe"\) STRING\("repro:ch"\) INTEGER\(1\)\]\n.*RESP2 UNSUBSCRIBE DECODED: ARRAY\[STRING\("message"\) STRING\("repro:ch"\) STRING\("hello"\)\]\nRESP2 PING next DECODED: ARRAY\[STRING\("unsubscribe"\) STRING\("repro:ch"\) INTEGER\(0\)\]\n
#include "lib.h"

int main(int argc, char **argv) {
    parse_addr(argc, argv);
    redisContext *sub = client(2), *pub = client(2);
    step("RESP2 SUBSCRIBE", sub, ARGV("SUBSCRIBE", "repro:ch"));
    step("RESP2 PUBLISH (other connection)", pub, ARGV("PUBLISH", "repro:ch", "hello"));
    usleep(100000);
    step("RESP2 UNSUBSCRIBE", sub, ARGV("UNSUBSCRIBE", "repro:ch"));
    step("RESP2 PING next", sub, ARGV("PING"));
    return 0;
}
