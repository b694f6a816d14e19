/* Shared by the hiredis repros: compiled as
 *   gcc -I$HIREDIS FILE.c $HIREDIS/libhiredis.a -lm -o x && ./x HOST:PORT
 * with $HIREDIS the hiredis tree that scripts/install-clients.sh builds
 * (see README.md). */
#include <hiredis.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char host[256];
static int port;

/* parse_addr reads HOST:PORT from argv[1]. */
static void parse_addr(int argc, char **argv) {
    const char *colon = argc > 1 ? strrchr(argv[1], ':') : NULL;
    if (colon == NULL || (size_t)(colon - argv[1]) >= sizeof host) {
        printf("usage: %s HOST:PORT\n", argv[0]);
        exit(2);
    }
    memcpy(host, argv[1], colon - argv[1]);
    port = atoi(colon + 1);
    setvbuf(stdout, NULL, _IONBF, 0);
}

static const char *type_names[] = {"?", "STRING", "ARRAY", "INTEGER", "NIL", "STATUS", "ERROR", "DOUBLE",
                                   "BOOL", "MAP", "SET", "ATTR", "PUSH", "BIGNUM", "VERB"};

static void show_str(const char *s, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c == '\r') printf("\\r");
        else if (c == '\n') printf("\\n");
        else if (c < 0x20 || c >= 0x7f) printf("\\x%02x", c);
        else putchar(c);
    }
    putchar('"');
}

/* show prints a redisReply: its REDIS_REPLY_* type and value. */
static void show(const redisReply *r) {
    if (r->type < 1 || r->type > 14) {
        printf("type %d", r->type);
        return;
    }
    printf("%s", type_names[r->type]);
    switch (r->type) {
    case REDIS_REPLY_INTEGER: printf("(%lld)", r->integer); break;
    case REDIS_REPLY_BOOL: printf("(%s)", r->integer ? "true" : "false"); break;
    case REDIS_REPLY_NIL: break;
    case REDIS_REPLY_ARRAY: case REDIS_REPLY_MAP: case REDIS_REPLY_SET: case REDIS_REPLY_PUSH: case REDIS_REPLY_ATTR:
        printf("[");
        for (size_t i = 0; i < r->elements; i++) {
            if (i) printf(" ");
            show(r->element[i]);
        }
        printf("]");
        break;
    case REDIS_REPLY_VERB: printf("(%s:", r->vtype); show_str(r->str, r->len); printf(")"); break;
    default: printf("("); show_str(r->str, r->len); printf(")");
    }
}

static const char *label_now = "";

static void on_alarm(int sig) {
    (void)sig;
    char msg[300];
    int n = snprintf(msg, sizeof msg, "%s HANG: no result after 2s\n", label_now);
    if (write(1, msg, n) < 0) _exit(1);
    _exit(0);
}

/* client connects speaking RESP proto: redisConnect, then HELLO 3 for 3. */
static redisContext *client(int proto) {
    redisContext *c = redisConnect(host, port);
    if (c == NULL || c->err) {
        printf("connect: %s\n", c ? c->errstr : "NULL");
        exit(1);
    }
    if (proto == 3) freeReplyObject(redisCommand(c, "HELLO 3"));
    return c;
}

/* step runs one redisCommandArgv (argv ends with NULL) with a 2 s timer and
 * prints DECODED, THROWN (a NULL reply: the context's error) or HANG. */
static redisReply *step(const char *label, redisContext *c, const char **argv) {
    int argc = 0;
    while (argv[argc]) argc++;
    label_now = label;
    signal(SIGALRM, on_alarm);
    alarm(2);
    redisReply *r = redisCommandArgv(c, argc, argv, NULL);
    alarm(0);
    if (r == NULL) {
        printf("%s THROWN: err %d: %s\n", label, c->err, c->errstr);
        return NULL;
    }
    printf("%s DECODED: ", label);
    show(r);
    printf("\n");
    return r;
}

#define ARGV(...) ((const char *[]){__VA_ARGS__, NULL})
