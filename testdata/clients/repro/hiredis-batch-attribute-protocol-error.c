// repro: hiredis's batch API (redisAppendCommandArgv, then redisGetReply per command) reads replies with the same reader as redisCommandArgv, which has no case for the RESP3 attribute type byte (|, read.c processItem): in a pipeline or a MULTI … EXEC the reply that carries an attribute fails with "Protocol error, got "|" as reply type byte", and every later redisGetReply of the batch (and call on the context) fails the same way.
// finds: attributes/two attributed blob strings pipelined [hiredis-1.2.0/pipeline/resp3]
// finds: attributes/EXEC array whose first element carries an attribute [hiredis-1.2.0/pipeline/resp3]
// finds: attributes/EXEC array with an attributed element between a map and a set [hiredis-1.2.0/pipeline/resp3]
// run: c
// expect: pipeline reply 0 THROWN: err 4: Protocol error, got "\|" as reply type byte\npipeline reply 1 THROWN: err 4: Protocol error, got "\|" as reply type byte\nmulti reply 0 DECODED: STATUS\("OK"\)\nmulti reply 1 DECODED: STATUS\("QUEUED"\)\nmulti reply 2 THROWN: err 4: Protocol error, got "\|" as reply type byte\n
#include "lib.h"

/* batch appends each command, then prints what redisGetReply gives for
 * each (a 2 s timer on the whole batch). */
static void batch(const char *label, redisContext *c, int n, const char **cmds[]) {
    for (int i = 0; i < n; i++) {
        int argc = 0;
        while (cmds[i][argc]) argc++;
        redisAppendCommandArgv(c, argc, cmds[i], NULL);
    }
    label_now = label;
    signal(SIGALRM, on_alarm);
    alarm(2);
    for (int i = 0; i < n; i++) {
        redisReply *r = NULL;
        if (redisGetReply(c, (void **)&r) != REDIS_OK) {
            printf("%s reply %d THROWN: err %d: %s\n", label, i, c->err, c->errstr);
            continue;
        }
        printf("%s reply %d DECODED: ", label, i);
        show(r);
        printf("\n");
        freeReplyObject(r);
    }
    alarm(0);
}

int main(int argc, char **argv) {
    parse_addr(argc, argv);
    redisContext *c = client(3);
    const char **pipeline[] = {ARGV("DEBUG", "PROTOCOL", "attrib"), ARGV("DEBUG", "PROTOCOL", "attrib")};
    batch("pipeline", c, 2, pipeline);
    redisFree(c);
    c = client(3);
    const char **multi[] = {ARGV("MULTI"), ARGV("DEBUG", "PROTOCOL", "attrib"), ARGV("EXEC")};
    batch("multi", c, 3, multi);
    return 0;
}
