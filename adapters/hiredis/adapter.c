/*
 * adapter.c: respcheck's client-view adapter for hiredis (C).
 *
 * Speaks respcheck's JSON-lines protocol (see runner/clients/adapter.go) on
 * stdin/stdout; logs go to stderr. Each named case connection is one
 * blocking redisContext (redisConnect), pinned, with a thread of its own so
 * that a blocked call (BLPOP) does not hold up the other connections. A step
 * is one redisCommandArgv(ctx, argc, argv, argvlen), exactly as an
 * application would call it; in RESP3 the connection first sends HELLO 3
 * (hiredis does not negotiate a protocol itself). The redisReply tree is
 * reported as it is (REDIS_REPLY_* type names, str/len, integer, dval, vtype,
 * elements), never normalised; a NULL reply is an exception with the
 * context's err and errstr.
 *
 * The configuration hiredis-1.2.0/pipeline also answers "batch": a pipeline
 * is redisAppendCommandArgv for each command, then redisGetReply once per
 * command, as an application pipelines with hiredis; a transaction is the
 * same with MULTI before the commands and EXEC after them. Every reply is
 * the application's to read: each command's value is its own reply (for a
 * queued command, QUEUED or its queue-time error), EXEC's reply the
 * transaction's ("exec"), MULTI's is read and dropped. A reply that cannot
 * be read (redisGetReply fails) is that command's exception and every later
 * one's.
 *
 * The configuration hiredis-1.2.0/pubsub also answers "subscribe" and
 * "next", as hiredis's README shows a blocking subscriber: the
 * (P|S)(UN)SUBSCRIBE is redisAppendCommandArgv, then redisGetReply in a
 * loop reads the frames the subscribed connection gets (RESP2 arrays; in
 * RESP3 push frames, which hiredis returns from redisGetReply only with no
 * push handler: README "RESP3 PUSH replies", redisSetPushCallback(c,
 * NULL) "for SUBSCRIBE workloads", set around each such read). Outside
 * those reads the connection has a push handler (redisSetPushCallback, as
 * hiredis's examples/example-push.c does for client-side caching) that
 * keeps each push a call meets. Each frame is delivered as the user reads
 * it: element 0 its kind, then channel, pattern, payload, count or keys
 * by position. A wait is poll(2) on the context's fd before redisGetReply
 * (a blocking context's read timeout would end the context). A "do" on a
 * RESP2 connection with subscriptions is redisAppendCommandArgv and that
 * loop up to the first frame that is not a message or a confirmation (a
 * pong, an error): the command's reply.
 *
 * With RESPCHECK_LOCALE set (the configuration hiredis-1.2.0[LC_ALL=NAME]),
 * the adapter first calls setlocale(LC_ALL, ""), as a C application that
 * honours its user's locale does, and offers only its plain configuration
 * under that name. hiredis's reader parses a RESP3 double with strtod
 * (read.c processLineItem), which reads the locale's decimal separator: a
 * comma in de_DE.UTF-8 (compiled by scripts/install-clients.sh into the
 * cache, found through LOCPATH).
 *
 * Built by scripts/install-clients.sh against the hiredis tree of the Redis
 * source package (deps/hiredis), statically linked:
 *   gcc -O2 -std=c11 -pthread -I$HIREDIS adapter.c $HIREDIS/libhiredis.a
 */
#define _GNU_SOURCE
#include <hiredis.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#define VERSION STR(HIREDIS_MAJOR) "." STR(HIREDIS_MINOR) "." STR(HIREDIS_PATCH)
#define LIBNAME "hiredis-" VERSION
#define API "redisCommandArgv(ctx, argc, argv, argvlen)"
#define SOURCE "hiredis " VERSION " from deps/hiredis of the Redis 8.6.3 source package (scripts/install-clients.sh)"
#define PUBSUB_API "redisAppendCommandArgv((P|S)(UN)SUBSCRIBE ...), then redisGetReply in a loop (no push handler while it reads, poll(2) for a wait); redisSetPushCallback for the pushes other calls meet; other steps " API
#define BATCH_API "redisAppendCommandArgv(ctx, argc, argv, argvlen) per command, then redisGetReply(ctx, &reply) per command (MULTI and EXEC appended around a transaction's); other steps " API

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static void die(const char *what) {
    fprintf(stderr, "hiredis adapter: %s\n", what);
    exit(2);
}

/* ---- output buffer ------------------------------------------------------ */

typedef struct {
    char *b;
    size_t n, cap;
} buf_t;

static void bput(buf_t *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        b->b = realloc(b->b, cap);
        if (b->b == NULL) die("out of memory");
        b->cap = cap;
    }
    memcpy(b->b + b->n, s, n);
    b->n += n;
    b->b[b->n] = '\0';
}

static void bputs(buf_t *b, const char *s) { bput(b, s, strlen(s)); }

static void bprintf(buf_t *b, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    bput(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* utf8_len is the length of the valid UTF-8 sequence at s (at most n
 * bytes), or 0: overlong forms, surrogates and code points past U+10FFFF are
 * invalid, as for Go's utf8.Valid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned cp, min;
    if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07, min = 0x10000;
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

static int utf8_valid(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t l = utf8_len(u + i, n - i);
        if (l == 0) return 0;
        i += l;
    }
    return 1;
}

/* bjson_str writes s as a JSON string; bytes that are not UTF-8 become
 * U+FFFD (callers that must keep them use b64). */
static void bjson_str(buf_t *b, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    bput(b, "\"", 1);
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            bput(b, e, 2);
            i++;
        } else if (c < 0x20) {
            bprintf(b, "\\u%04x", c);
            i++;
        } else if (c < 0x80) {
            bput(b, s + i, 1);
            i++;
        } else {
            size_t l = utf8_len(u + i, n - i);
            if (l == 0) {
                bputs(b, "\\ufffd");
                i++;
            } else {
                bput(b, s + i, l);
                i += l;
            }
        }
    }
    bput(b, "\"", 1);
}

static void bjson_cstr(buf_t *b, const char *s) { bjson_str(b, s, strlen(s)); }

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void bb64(buf_t *b, const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    bput(b, "\"", 1);
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = u[i] << 16 | (i + 1 < n ? u[i + 1] << 8 : 0) | (i + 2 < n ? u[i + 2] : 0);
        char q[4] = {b64chars[v >> 18 & 63], b64chars[v >> 12 & 63],
                     i + 1 < n ? b64chars[v >> 6 & 63] : '=', i + 2 < n ? b64chars[v & 63] : '='};
        bput(b, q, 4);
    }
    bput(b, "\"", 1);
}

/* send_line writes one response line (b holds it without the newline). */
static void send_line(buf_t *b) {
    bput(b, "\n", 1);
    pthread_mutex_lock(&out_mu);
    fwrite(b->b, 1, b->n, stdout);
    fflush(stdout);
    pthread_mutex_unlock(&out_mu);
    free(b->b);
    b->b = NULL;
    b->n = b->cap = 0;
}

static void send_simple(long long id, const char *key, const char *text) {
    buf_t b = {0};
    bprintf(&b, "{\"id\":%lld,", id);
    if (text == NULL) {
        bprintf(&b, "\"%s\":true}", key);
    } else {
        bprintf(&b, "\"%s\":", key);
        bjson_cstr(&b, text);
        bputs(&b, "}");
    }
    send_line(&b);
}

/* ---- redisReply → Native -------------------------------------------------- */

static const char *type_name(int t) {
    switch (t) {
    case REDIS_REPLY_STRING: return "REDIS_REPLY_STRING";
    case REDIS_REPLY_ARRAY: return "REDIS_REPLY_ARRAY";
    case REDIS_REPLY_INTEGER: return "REDIS_REPLY_INTEGER";
    case REDIS_REPLY_NIL: return "REDIS_REPLY_NIL";
    case REDIS_REPLY_STATUS: return "REDIS_REPLY_STATUS";
    case REDIS_REPLY_ERROR: return "REDIS_REPLY_ERROR";
    case REDIS_REPLY_DOUBLE: return "REDIS_REPLY_DOUBLE";
    case REDIS_REPLY_BOOL: return "REDIS_REPLY_BOOL";
    case REDIS_REPLY_MAP: return "REDIS_REPLY_MAP";
    case REDIS_REPLY_SET: return "REDIS_REPLY_SET";
    case REDIS_REPLY_ATTR: return "REDIS_REPLY_ATTR";
    case REDIS_REPLY_PUSH: return "REDIS_REPLY_PUSH";
    case REDIS_REPLY_BIGNUM: return "REDIS_REPLY_BIGNUM";
    case REDIS_REPLY_VERB: return "REDIS_REPLY_VERB";
    }
    return NULL;
}

/* put_payload writes str/len as "text" when it is UTF-8, else "b64". */
static void put_payload(buf_t *b, const char *s, size_t n) {
    if (utf8_valid(s, n)) {
        bputs(b, ",\"text\":");
        bjson_str(b, s, n);
    } else {
        bputs(b, ",\"b64\":");
        bb64(b, s, n);
    }
}

/* put_type writes the host type: the REDIS_REPLY_* name, and for a
 * verbatim string its vtype ("REDIS_REPLY_VERB vtype=txt"). */
static void put_type(buf_t *b, const redisReply *r) {
    const char *t = type_name(r->type);
    char tmp[64];
    if (t == NULL) {
        snprintf(tmp, sizeof tmp, "redisReply type %d", r->type);
        t = tmp;
    } else if (r->type == REDIS_REPLY_VERB) {
        snprintf(tmp, sizeof tmp, "%s vtype=", t);
        for (int i = 0; i < 3 && r->vtype[i]; i++) {
            unsigned char c = (unsigned char)r->vtype[i];
            size_t l = strlen(tmp);
            snprintf(tmp + l, sizeof tmp - l, c > 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
        }
        t = tmp;
    }
    bputs(b, "\"type\":");
    bjson_cstr(b, t);
}

/* c_locale is the C locale, in which the adapter reads and writes its own
 * numbers whatever setlocale set (RESPCHECK_LOCALE); 0 when not made. */
static locale_t c_locale;

static void put_double_c(buf_t *b, const redisReply *r);

/* put_double writes the double's text (put_double_c) in the C locale: the
 * adapter's report of what hiredis read must not change with the locale
 * hiredis read it in. */
static void put_double(buf_t *b, const redisReply *r) {
    locale_t old = c_locale ? uselocale(c_locale) : 0;
    put_double_c(b, r);
    if (old) uselocale(old);
}

/* put_double_c: the str hiredis keeps (the bytes as received) when it
 * reads back as dval, else dval itself. */
static void put_double_c(buf_t *b, const redisReply *r) {
    if (r->str != NULL) {
        char *end;
        double d = strtod(r->str, &end);
        if (*end == '\0' && (d == r->dval || (isnan(d) && isnan(r->dval)))) {
            put_payload(b, r->str, r->len);
            return;
        }
    }
    char tmp[40];
    if (isnan(r->dval)) snprintf(tmp, sizeof tmp, "nan");
    else if (isinf(r->dval)) snprintf(tmp, sizeof tmp, r->dval > 0 ? "inf" : "-inf");
    else snprintf(tmp, sizeof tmp, "%.17g", r->dval);
    bputs(b, ",\"text\":");
    bjson_cstr(b, tmp);
}

static void put_native(buf_t *b, const redisReply *r, int depth);

static void put_elems(buf_t *b, const redisReply *r, int depth) {
    bputs(b, ",\"elems\":[");
    for (size_t i = 0; i < r->elements; i++) {
        if (i) bputs(b, ",");
        put_native(b, r->element[i], depth + 1);
    }
    bputs(b, "]");
}

static void put_pairs(buf_t *b, const redisReply *r, int depth) {
    bputs(b, ",\"pairs\":[");
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        if (i) bputs(b, ",");
        bputs(b, "[");
        put_native(b, r->element[i], depth + 1);
        bputs(b, ",");
        put_native(b, r->element[i + 1], depth + 1);
        bputs(b, "]");
    }
    bputs(b, "]");
}

static const char *kind_of(int t) {
    switch (t) {
    case REDIS_REPLY_STRING: case REDIS_REPLY_STATUS: case REDIS_REPLY_VERB: case REDIS_REPLY_BIGNUM:
        return "bytes";
    case REDIS_REPLY_ERROR: return "error";
    case REDIS_REPLY_INTEGER: return "int";
    case REDIS_REPLY_NIL: return "nil";
    case REDIS_REPLY_DOUBLE: return "float";
    case REDIS_REPLY_BOOL: return "bool";
    case REDIS_REPLY_ARRAY: case REDIS_REPLY_PUSH: return "list";
    case REDIS_REPLY_SET: return "set";
    case REDIS_REPLY_MAP: case REDIS_REPLY_ATTR: return "map";
    }
    return "other";
}

static void put_native(buf_t *b, const redisReply *r, int depth) {
    if (r == NULL) {
        bputs(b, "{\"kind\":\"other\",\"type\":\"redisReply *(NULL)\"}");
        return;
    }
    bprintf(b, "{\"kind\":\"%s\",", depth > 64 ? "other" : kind_of(r->type));
    put_type(b, r);
    if (depth > 64) {
        bputs(b, ",\"text\":\"<too deep>\"}");
        return;
    }
    switch (r->type) {
    case REDIS_REPLY_STRING: case REDIS_REPLY_STATUS: case REDIS_REPLY_VERB: case REDIS_REPLY_BIGNUM:
        put_payload(b, r->str, r->len);
        break;
    case REDIS_REPLY_ERROR:
        bputs(b, ",\"error\":{\"class\":\"REDIS_REPLY_ERROR\",\"message\":");
        bjson_str(b, r->str, r->len);
        bputs(b, "}");
        break;
    case REDIS_REPLY_INTEGER:
        bprintf(b, ",\"text\":\"%lld\"", r->integer);
        break;
    case REDIS_REPLY_DOUBLE:
        put_double(b, r);
        break;
    case REDIS_REPLY_BOOL:
        bputs(b, r->integer ? ",\"text\":\"true\"" : ",\"text\":\"false\"");
        break;
    case REDIS_REPLY_ARRAY: case REDIS_REPLY_SET: case REDIS_REPLY_PUSH:
        put_elems(b, r, depth);
        break;
    case REDIS_REPLY_MAP: case REDIS_REPLY_ATTR:
        put_pairs(b, r, depth);
        break;
    }
    bputs(b, "}");
}

static const char *err_class(int err) {
    switch (err) {
    case REDIS_ERR_IO: return "REDIS_ERR_IO";
    case REDIS_ERR_EOF: return "REDIS_ERR_EOF";
    case REDIS_ERR_PROTOCOL: return "REDIS_ERR_PROTOCOL";
    case REDIS_ERR_OOM: return "REDIS_ERR_OOM";
    case REDIS_ERR_TIMEOUT: return "REDIS_ERR_TIMEOUT";
    case REDIS_ERR_OTHER: return "REDIS_ERR_OTHER";
    }
    return "REDIS_ERR";
}

static void send_exception(long long id, const char *type, const char *cls, const char *msg) {
    buf_t b = {0};
    bprintf(&b, "{\"id\":%lld,\"value\":{\"kind\":\"exception\",\"type\":", id);
    bjson_cstr(&b, type);
    bputs(&b, ",\"error\":{\"class\":");
    bjson_cstr(&b, cls);
    bputs(&b, ",\"message\":");
    bjson_cstr(&b, msg);
    bputs(&b, "}}}");
    send_line(&b);
}

/* ---- connections ------------------------------------------------------------- */

/* cmd_t is one command: its arguments and their lengths. */
typedef struct {
    int argc;
    char **argv;
    size_t *lens;
} cmd_t;

typedef struct job {
    long long id;
    int quit;
    int argc;
    char **argv;
    size_t *lens;
    /* a batch: mode "pipeline" or "multi" (batch_multi), its commands */
    int batch, batch_multi, ncmds;
    cmd_t *cmds;
    /* a "subscribe" (sub) or a "next" (next, waiting at most wait_ms) */
    int sub, next_item;
    long long wait_ms;
    struct job *next;
} job_t;

/* item_t is a frame a "/pubsub" connection delivered, as a Native (JSON),
 * not yet asked for by a "next". */
typedef struct item {
    char *json;
    struct item *next;
} item_t;

typedef struct conn {
    char *name;
    char host[256];
    int port, proto;
    redisContext *ctx;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job_t *head, *tail;
    /* the /pubsub configuration: its subscription count (the last
     * confirmation's), the frames delivered and not yet asked for */
    int pubsub;
    long long subs;
    item_t *items, *items_tail;
    struct conn *next;
} conn_t;

static void free_cmd(cmd_t *c) {
    for (int i = 0; i < c->argc; i++) free(c->argv[i]);
    free(c->argv);
    free(c->lens);
}

static void free_job(job_t *j) {
    cmd_t c = {j->argc, j->argv, j->lens};
    free_cmd(&c);
    for (int i = 0; i < j->ncmds; i++) free_cmd(&j->cmds[i]);
    free(j->cmds);
    free(j);
}

static void on_push(void *privdata, void *reply);

/* connect_ctx opens the connection as an application would: redisConnect,
 * then HELLO 3 for RESP3. It returns 0, or sends the exception and
 * returns -1. */
static int connect_ctx(conn_t *c, long long id) {
    redisContext *ctx = redisConnect(c->host, c->port);
    if (ctx == NULL || ctx->err) {
        send_exception(id, "redisContext", ctx ? err_class(ctx->err) : "REDIS_ERR_OOM",
                       ctx ? ctx->errstr : "redisConnect returned NULL");
        if (ctx) redisFree(ctx);
        return -1;
    }
    if (c->proto == 3) {
        redisReply *r = redisCommand(ctx, "HELLO 3");
        if (r == NULL || r->type == REDIS_REPLY_ERROR) {
            char msg[256];
            snprintf(msg, sizeof msg, "HELLO 3: %s", r ? r->str : ctx->errstr);
            send_exception(id, "redisContext", r ? "REDIS_REPLY_ERROR" : err_class(ctx->err), msg);
            freeReplyObject(r);
            redisFree(ctx);
            return -1;
        }
        freeReplyObject(r);
    }
    if (c->pubsub) {
        /* The pushes a call meets go to on_push (privdata: the conn). */
        ctx->privdata = c;
        redisSetPushCallback(ctx, on_push);
    }
    c->ctx = ctx;
    return 0;
}

static void run_subscribed_do(conn_t *c, job_t *j);

static void run_job(conn_t *c, job_t *j) {
    if (c->ctx == NULL && connect_ctx(c, j->id) < 0) return;
    if (c->pubsub && c->proto == 2 && c->subs > 0) return run_subscribed_do(c, j);
    redisReply *r = redisCommandArgv(c->ctx, j->argc, (const char **)j->argv, j->lens);
    if (r == NULL) {
        send_exception(j->id, "redisContext", err_class(c->ctx->err), c->ctx->errstr);
        return;
    }
    buf_t b = {0};
    bprintf(&b, "{\"id\":%lld,\"value\":", j->id);
    put_native(&b, r, 0);
    bputs(&b, "}");
    freeReplyObject(r);
    send_line(&b);
}

/* put_reply_or_error writes a reply read by redisGetReply, or the
 * exception of a read that failed (r NULL). */
static void put_reply_or_error(buf_t *b, conn_t *c, redisReply *r) {
    if (r != NULL) {
        put_native(b, r, 0);
        return;
    }
    bputs(b, "{\"kind\":\"exception\",\"type\":\"redisContext\",\"error\":{\"class\":");
    bjson_cstr(b, err_class(c->ctx->err));
    bputs(b, ",\"message\":");
    bjson_cstr(b, c->ctx->errstr[0] ? c->ctx->errstr : "redisGetReply failed");
    bputs(b, "}}");
}

/* run_batch appends every command of the batch (MULTI and EXEC around a
 * transaction's), then reads one reply per command with redisGetReply:
 * {"values":[each command's reply], "exec": EXEC's reply}. */
static void run_batch(conn_t *c, job_t *j) {
    if (c->ctx == NULL && connect_ctx(c, j->id) < 0) return;
    static const char *multi[] = {"MULTI"}, *exec[] = {"EXEC"};
    static const size_t multilen[] = {5}, execlen[] = {4};
    if (j->batch_multi) redisAppendCommandArgv(c->ctx, 1, multi, multilen);
    for (int i = 0; i < j->ncmds; i++)
        redisAppendCommandArgv(c->ctx, j->cmds[i].argc, (const char **)j->cmds[i].argv, j->cmds[i].lens);
    if (j->batch_multi) redisAppendCommandArgv(c->ctx, 1, exec, execlen);
    int n = j->ncmds + (j->batch_multi ? 2 : 0), failed = 0;
    buf_t b = {0};
    bprintf(&b, "{\"id\":%lld,\"values\":[", j->id);
    for (int i = 0; i < n; i++) {
        redisReply *r = NULL;
        if (!failed && redisGetReply(c->ctx, (void **)&r) != REDIS_OK) failed = 1, r = NULL;
        int own = !j->batch_multi || (i > 0 && i < n - 1);
        if (j->batch_multi && i == n - 1) bputs(&b, "],\"exec\":");
        else if (own && i > (j->batch_multi ? 1 : 0)) bputs(&b, ",");
        if (own || i == n - 1) put_reply_or_error(&b, c, r);
        freeReplyObject(r);
    }
    bputs(&b, j->batch_multi ? "}" : "]}");
    send_line(&b);
}

/* ---- the /pubsub configuration ------------------------------------------------ */

/* elem_is reports whether r's element i is a string equal to s. */
static int elem_is(const redisReply *r, size_t i, const char *s) {
    if (i >= r->elements) return 0;
    const redisReply *e = r->element[i];
    return (e->type == REDIS_REPLY_STRING || e->type == REDIS_REPLY_STATUS) && e->len == strlen(s) &&
           strncasecmp(e->str, s, e->len) == 0;
}

/* is_confirmation reports whether r is a (p|s)(un)subscribe confirmation. */
static int is_confirmation(const redisReply *r) {
    static const char *kinds[] = {"subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe"};
    if (r->type != REDIS_REPLY_ARRAY && r->type != REDIS_REPLY_PUSH) return 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (elem_is(r, 0, kinds[i])) return 1;
    return 0;
}

/* is_delivered reports whether r is a frame of the subscribed connection
 * (a push, or in RESP2 with subscriptions or a confirmation awaited an
 * array whose element 0 names a message, a confirmation or a pong). */
static int is_delivered(const conn_t *c, const redisReply *r, int awaiting) {
    if (r->type == REDIS_REPLY_PUSH) return 1;
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 || (c->subs == 0 && !awaiting)) return 0;
    return is_confirmation(r) || elem_is(r, 0, "message") || elem_is(r, 0, "pmessage") || elem_is(r, 0, "smessage") ||
           (c->subs > 0 && elem_is(r, 0, "pong"));
}

static void put_field(buf_t *b, int *first, const char *name, const redisReply *r, size_t i) {
    if (i >= r->elements) return;
    bprintf(b, "%s[{\"kind\":\"string\",\"type\":\"field\",\"text\":\"%s\"},", *first ? "" : ",", name);
    put_native(b, r->element[i], 1);
    bputs(b, "]");
    *first = 0;
}

/* put_item writes a delivered frame as a Native of kind "message": its
 * elements named by position (element 0 the kind). A confirmation updates
 * the connection's subscription count. */
static void put_item(buf_t *b, conn_t *c, const redisReply *r, const char *via) {
    bprintf(b, "{\"kind\":\"message\",\"type\":\"redisReply %s (%s)\"", type_name(r->type) ? type_name(r->type) : "?", via);
    bputs(b, ",\"pairs\":[");
    int first = 1;
    put_field(b, &first, "kind", r, 0);
    if (elem_is(r, 0, "pmessage")) {
        put_field(b, &first, "pattern", r, 1);
        put_field(b, &first, "channel", r, 2);
        put_field(b, &first, "payload", r, 3);
    } else if (is_confirmation(r)) {
        put_field(b, &first, "channel", r, 1);
        put_field(b, &first, "count", r, 2);
        if (r->elements > 2 && r->element[2]->type == REDIS_REPLY_INTEGER) c->subs = r->element[2]->integer;
    } else if (elem_is(r, 0, "pong")) {
        put_field(b, &first, "payload", r, 1);
    } else if (elem_is(r, 0, "invalidate")) {
        put_field(b, &first, "keys", r, 1);
    } else {
        put_field(b, &first, "channel", r, 1);
        put_field(b, &first, "payload", r, 2);
    }
    bputs(b, "]}");
}

/* keep queues a delivered frame for a later "next"; via names the call
 * that delivered it. */
static void keep(conn_t *c, const redisReply *r, const char *via) {
    buf_t b = {0};
    put_item(&b, c, r, via);
    item_t *it = calloc(1, sizeof *it);
    if (it == NULL) die("out of memory");
    it->json = b.b;
    if (c->items_tail) c->items_tail->next = it;
    else c->items = it;
    c->items_tail = it;
}

/* on_push is the connection's push handler (redisSetPushCallback): it
 * keeps each push a call meets. */
static void on_push(void *privdata, void *reply) {
    keep(privdata, reply, "push handler");
    freeReplyObject(reply);
}

/* flush writes the context's output buffer (what redisAppendCommandArgv
 * queued), as redisGetReply does before it reads. */
static int flush(conn_t *c) {
    int done = 0;
    do {
        if (redisBufferWrite(c->ctx, &done) == REDIS_ERR) return -1;
    } while (!done);
    return 0;
}

/* read_frame reads the next frame with redisGetReply and no push handler
 * (so that a push comes back as the reply), waiting at most wait_ms for it
 * to start (poll(2) on the fd, unless the reader already holds one): 1
 * with *r set, 0 when nothing came, -1 when the read failed. */
static int read_frame(conn_t *c, long long wait_ms, redisReply **r) {
    redisPushFn *old = redisSetPushCallback(c->ctx, NULL);
    int got = 1;
    *r = NULL;
    if (redisGetReplyFromReader(c->ctx, (void **)r) != REDIS_OK) got = -1;
    else if (*r == NULL) {
        struct pollfd p = {.fd = c->ctx->fd, .events = POLLIN};
        int n = poll(&p, 1, wait_ms > INT32_MAX ? INT32_MAX : (int)wait_ms);
        if (n == 0) got = 0;
        else if (redisGetReply(c->ctx, (void **)r) != REDIS_OK) got = -1;
    }
    redisSetPushCallback(c->ctx, old);
    return got;
}

/* send_frame answers j with a delivered frame (put_item), or with the
 * reply itself when it is not one. */
static void send_frame(conn_t *c, job_t *j, redisReply *r, int awaiting) {
    buf_t b = {0};
    bprintf(&b, "{\"id\":%lld,\"value\":", j->id);
    if (is_delivered(c, r, awaiting)) put_item(&b, c, r, "redisGetReply");
    else put_native(&b, r, 0);
    bputs(&b, "}");
    send_line(&b);
}

/* AWAIT_MS bounds a read that respcheck's step deadline bounds anyway. */
#define AWAIT_MS 60000

/* send_and_read sends j's command, then reads frames, keeping the
 * messages, up to the one that answers it: for a (P|S)(UN)SUBSCRIBE (sub)
 * its first confirmation, for a command on a RESP2 connection with
 * subscriptions the first frame that is neither a message nor a
 * confirmation (its reply: a pong, an error); either way a reply that is
 * not a delivered frame (an error). */
static void send_and_read(conn_t *c, job_t *j, int sub) {
    redisAppendCommandArgv(c->ctx, j->argc, (const char **)j->argv, j->lens);
    if (flush(c) < 0) return send_exception(j->id, "redisContext", err_class(c->ctx->err), c->ctx->errstr);
    for (;;) {
        redisReply *r;
        int got = read_frame(c, AWAIT_MS, &r);
        if (got < 0) return send_exception(j->id, "redisContext", err_class(c->ctx->err), c->ctx->errstr);
        if (got == 0) return send_simple(j->id, "error", "no reply within 60 s");
        if (sub ? is_delivered(c, r, 1) && !is_confirmation(r) : is_delivered(c, r, 0) && !elem_is(r, 0, "pong")) {
            keep(c, r, "redisGetReply");
            freeReplyObject(r);
            continue;
        }
        if (sub) {
            send_frame(c, j, r, 1);
        } else {
            buf_t b = {0};
            bprintf(&b, "{\"id\":%lld,\"value\":", j->id);
            put_native(&b, r, 0);
            bputs(&b, "}");
            send_line(&b);
        }
        freeReplyObject(r);
        return;
    }
}

/* run_sub sends a (P|S)(UN)SUBSCRIBE: its value is its first
 * confirmation (send_and_read). */
static void run_sub(conn_t *c, job_t *j) {
    if (c->ctx == NULL && connect_ctx(c, j->id) < 0) return;
    send_and_read(c, j, 1);
}

/* run_subscribed_do sends a command on a RESP2 connection with
 * subscriptions (send_and_read). */
static void run_subscribed_do(conn_t *c, job_t *j) { send_and_read(c, j, 0); }

/* run_next answers the next frame delivered: one kept, else the next one
 * read within wait_ms, else kind "none". */
static void run_next(conn_t *c, job_t *j) {
    if (c->ctx == NULL && connect_ctx(c, j->id) < 0) return;
    if (c->items) {
        item_t *it = c->items;
        c->items = it->next;
        if (c->items == NULL) c->items_tail = NULL;
        buf_t b = {0};
        bprintf(&b, "{\"id\":%lld,\"value\":", j->id);
        bputs(&b, it->json);
        bputs(&b, "}");
        free(it->json);
        free(it);
        return send_line(&b);
    }
    redisReply *r;
    int got = read_frame(c, j->wait_ms, &r);
    if (got < 0) return send_exception(j->id, "redisContext", err_class(c->ctx->err), c->ctx->errstr);
    if (got == 0) {
        buf_t b = {0};
        bprintf(&b, "{\"id\":%lld,\"value\":{\"kind\":\"none\",\"type\":\"none\"}}", j->id);
        return send_line(&b);
    }
    send_frame(c, j, r, 0);
    freeReplyObject(r);
}

static void *conn_loop(void *arg) {
    conn_t *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (c->head == NULL) pthread_cond_wait(&c->cv, &c->mu);
        job_t *j = c->head;
        c->head = j->next;
        if (c->head == NULL) c->tail = NULL;
        pthread_mutex_unlock(&c->mu);
        if (j->quit) {
            free_job(j);
            break;
        }
        if (j->batch) run_batch(c, j);
        else if (j->sub) run_sub(c, j);
        else if (j->next_item) run_next(c, j);
        else run_job(c, j);
        free_job(j);
    }
    if (c->ctx) redisFree(c->ctx);
    for (item_t *it = c->items, *next; it; it = next) {
        next = it->next;
        free(it->json);
        free(it);
    }
    free(c->name);
    free(c);
    return NULL;
}

static void enqueue(conn_t *c, job_t *j) {
    pthread_mutex_lock(&c->mu);
    if (c->tail) c->tail->next = j;
    else c->head = j;
    c->tail = j;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* ---- sessions -------------------------------------------------------------- */

typedef struct session {
    char *id;
    char host[256];
    int port, proto;
    int batch; /* the /pipeline configuration: takes "batch" */
    int pubsub; /* the /pubsub configuration: takes "subscribe" and "next" */
    conn_t *conns;
    struct session *next;
} session_t;

static session_t *sessions;

static session_t *find_session(const char *id) {
    for (session_t *s = sessions; s; s = s->next)
        if (strcmp(s->id, id) == 0) return s;
    return NULL;
}

static conn_t *conn_of(session_t *s, const char *name) {
    for (conn_t *c = s->conns; c; c = c->next)
        if (strcmp(c->name, name) == 0) return c;
    conn_t *c = calloc(1, sizeof *c);
    if (c == NULL) die("out of memory");
    c->name = strdup(name);
    memcpy(c->host, s->host, sizeof c->host);
    c->port = s->port;
    c->proto = s->proto;
    c->pubsub = s->pubsub;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, conn_loop, c) != 0) die("pthread_create failed");
    pthread_attr_destroy(&attr);
    c->next = s->conns;
    s->conns = c;
    return c;
}

/* close_session ends each connection after its queued calls (its thread
 * frees it) and forgets the session. */
static void close_session(const char *id) {
    for (session_t **p = &sessions; *p; p = &(*p)->next) {
        session_t *s = *p;
        if (strcmp(s->id, id) != 0) continue;
        *p = s->next;
        for (conn_t *c = s->conns, *next; c; c = next) {
            next = c->next;
            job_t *j = calloc(1, sizeof *j);
            if (j == NULL) die("out of memory");
            j->quit = 1;
            enqueue(c, j);
        }
        free(s->id);
        free(s);
        return;
    }
}

/* ---- requests: flat JSON objects ---------------------------------------------- */

typedef struct {
    long long id;
    char *op, *session, *conn, *lib, *addr, *mode;
    long long proto, wait_ms;
    int nargs, argcap;
    char **args;
    size_t *lens;
    /* a batch's commands ("cmds": arrays of base64 arguments) */
    int ncmds, cmdcap;
    cmd_t *cmds;
} req_t;

static void free_req(req_t *r) {
    free(r->op), free(r->session), free(r->conn), free(r->lib), free(r->addr), free(r->mode);
    for (int i = 0; i < r->nargs; i++) free(r->args[i]);
    free(r->args), free(r->lens);
    for (int i = 0; i < r->ncmds; i++) free_cmd(&r->cmds[i]);
    free(r->cmds);
}

typedef struct {
    const char *p, *end;
} cur_t;

static void skip_ws(cur_t *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n')) c->p++;
}

static int hex4(const char *p, unsigned *v) {
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char h = p[i];
        *v <<= 4;
        if (h >= '0' && h <= '9') *v |= h - '0';
        else if (h >= 'a' && h <= 'f') *v |= h - 'a' + 10;
        else if (h >= 'A' && h <= 'F') *v |= h - 'A' + 10;
        else return -1;
    }
    return 0;
}

static void put_utf8(buf_t *b, unsigned cp) {
    char u[4];
    size_t n;
    if (cp < 0x80) u[0] = (char)cp, n = 1;
    else if (cp < 0x800) u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3F)), u[2] = (char)(0x80 | (cp >> 6 & 0x3F)),
        u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    bput(b, u, n);
}

/* parse_escape decodes the escape after a backslash at c->p. */
static int parse_escape(cur_t *c, buf_t *b) {
    if (c->p >= c->end) return -1;
    char e = *c->p++;
    const char *simple = "\"\\/bfnrt", *value = "\"\\/\b\f\n\r\t";
    const char *k = strchr(simple, e);
    if (e != 'u') {
        if (k == NULL || e == '\0') return -1;
        bput(b, value + (k - simple), 1);
        return 0;
    }
    unsigned cp, lo;
    if (c->end - c->p < 4 || hex4(c->p, &cp) < 0) return -1;
    c->p += 4;
    if (cp >= 0xD800 && cp <= 0xDBFF && c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u' &&
        hex4(c->p + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        c->p += 6;
    } else if (cp >= 0xD800 && cp <= 0xDFFF) {
        cp = 0xFFFD;
    }
    put_utf8(b, cp);
    return 0;
}

/* parse_string reads a JSON string at c->p into a new NUL-terminated
 * buffer (*out; its length in *len). */
static int parse_string(cur_t *c, char **out, size_t *len) {
    if (c->p >= c->end || *c->p != '"') return -1;
    c->p++;
    buf_t b = {0};
    bput(&b, "", 0);
    while (c->p < c->end && *c->p != '"') {
        if (*c->p == '\\') {
            c->p++;
            if (parse_escape(c, &b) < 0) {
                free(b.b);
                return -1;
            }
        } else {
            bput(&b, c->p++, 1);
        }
    }
    if (c->p >= c->end) {
        free(b.b);
        return -1;
    }
    c->p++;
    *out = b.b;
    if (len) *len = b.n;
    return 0;
}

static int skip_value(cur_t *c, int depth);

static int skip_aggregate(cur_t *c, char close, int depth) {
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == close) return c->p++, 0;
    for (;;) {
        if (close == '}') {
            char *k;
            if (parse_string(c, &k, NULL) < 0) return -1;
            free(k);
            skip_ws(c);
            if (c->p >= c->end || *c->p++ != ':') return -1;
        }
        if (skip_value(c, depth + 1) < 0) return -1;
        skip_ws(c);
        if (c->p >= c->end) return -1;
        if (*c->p == close) return c->p++, 0;
        if (*c->p++ != ',') return -1;
    }
}

static int skip_value(cur_t *c, int depth) {
    skip_ws(c);
    if (c->p >= c->end || depth > 32) return -1;
    char ch = *c->p;
    if (ch == '"') {
        char *s;
        if (parse_string(c, &s, NULL) < 0) return -1;
        free(s);
        return 0;
    }
    if (ch == '[') return skip_aggregate(c, ']', depth);
    if (ch == '{') return skip_aggregate(c, '}', depth);
    const char *start = c->p;
    while (c->p < c->end && strchr(",}] \t\r\n", *c->p) == NULL) c->p++;
    return c->p > start ? 0 : -1;
}

static int parse_number(cur_t *c, long long *v) {
    char tmp[32];
    size_t n = 0;
    while (c->p < c->end && n < sizeof tmp - 1 && strchr("-+0123456789.eE", *c->p)) tmp[n++] = *c->p++;
    tmp[n] = '\0';
    char *end;
    errno = 0;
    *v = strtoll(tmp, &end, 10);
    return n == 0 || errno ? -1 : 0;
}

static int b64val(unsigned char ch) {
    const char *p = ch ? strchr(b64chars, ch) : NULL;
    return p ? (int)(p - b64chars) : -1;
}

/* b64decode decodes s in place (padding optional); returns the length or -1. */
static long b64decode(char *s, size_t n) {
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '=') break;
        int v = b64val((unsigned char)s[i]);
        if (v < 0) return -1;
        acc = acc << 6 | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            s[o++] = (char)(acc >> bits & 0xFF);
        }
    }
    return (long)o;
}

static int parse_args(cur_t *c, req_t *r) {
    if (*c->p != '[') return skip_value(c, 0);
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') return c->p++, 0;
    for (;;) {
        char *s;
        size_t n;
        skip_ws(c);
        if (parse_string(c, &s, &n) < 0) return -1;
        long dn = b64decode(s, n);
        if (dn < 0) {
            free(s);
            return -1;
        }
        if (r->nargs == r->argcap) {
            r->argcap = r->argcap ? r->argcap * 2 : 8;
            r->args = realloc(r->args, r->argcap * sizeof *r->args);
            r->lens = realloc(r->lens, r->argcap * sizeof *r->lens);
            if (!r->args || !r->lens) die("out of memory");
        }
        r->args[r->nargs] = s;
        r->lens[r->nargs++] = (size_t)dn;
        skip_ws(c);
        if (c->p >= c->end) return -1;
        if (*c->p == ']') return c->p++, 0;
        if (*c->p++ != ',') return -1;
    }
}

/* parse_cmds reads "cmds", an array of argument arrays, into r->cmds. */
static int parse_cmds(cur_t *c, req_t *r) {
    if (c->p >= c->end || *c->p != '[') return skip_value(c, 0);
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') return c->p++, 0;
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end || *c->p != '[') return -1;
        req_t one = {0};
        if (parse_args(c, &one) < 0) {
            free_req(&one);
            return -1;
        }
        if (r->ncmds == r->cmdcap) {
            r->cmdcap = r->cmdcap ? r->cmdcap * 2 : 8;
            r->cmds = realloc(r->cmds, r->cmdcap * sizeof *r->cmds);
            if (!r->cmds) die("out of memory");
        }
        r->cmds[r->ncmds++] = (cmd_t){one.nargs, one.args, one.lens};
        skip_ws(c);
        if (c->p >= c->end) return -1;
        if (*c->p == ']') return c->p++, 0;
        if (*c->p++ != ',') return -1;
    }
}

/* parse_field reads the value of key k into r (unknown keys are skipped). */
static int parse_field(cur_t *c, const char *k, req_t *r) {
    char **dst = NULL;
    if (strcmp(k, "op") == 0) dst = &r->op;
    else if (strcmp(k, "session") == 0) dst = &r->session;
    else if (strcmp(k, "conn") == 0) dst = &r->conn;
    else if (strcmp(k, "lib") == 0) dst = &r->lib;
    else if (strcmp(k, "addr") == 0) dst = &r->addr;
    else if (strcmp(k, "mode") == 0) dst = &r->mode;
    if (dst && c->p < c->end && *c->p == '"') {
        free(*dst);
        return parse_string(c, dst, NULL);
    }
    if (strcmp(k, "id") == 0) return parse_number(c, &r->id);
    if (strcmp(k, "proto") == 0) return parse_number(c, &r->proto);
    if (strcmp(k, "wait_ms") == 0) return parse_number(c, &r->wait_ms);
    if (strcmp(k, "args") == 0) return parse_args(c, r);
    if (strcmp(k, "cmds") == 0) return parse_cmds(c, r);
    return skip_value(c, 0);
}

static int parse_request(const char *line, size_t n, req_t *r) {
    cur_t c = {line, line + n};
    memset(r, 0, sizeof *r);
    r->id = -1;
    skip_ws(&c);
    if (c.p >= c.end || *c.p++ != '{') return -1;
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') return 0;
    for (;;) {
        char *k;
        skip_ws(&c);
        if (parse_string(&c, &k, NULL) < 0) return -1;
        skip_ws(&c);
        int bad = c.p >= c.end || *c.p++ != ':';
        if (!bad) skip_ws(&c);
        bad = bad || parse_field(&c, k, r) < 0;
        free(k);
        if (bad) return -1;
        skip_ws(&c);
        if (c.p >= c.end) return -1;
        if (*c.p == '}') return 0;
        if (*c.p++ != ',') return -1;
    }
}

/* ---- ops ------------------------------------------------------------------------- */

/* locale_lib is the configuration's name in the RESPCHECK_LOCALE mode
 * ("hiredis-1.2.0[LC_ALL=de_DE.UTF-8]"), else NULL. */
static char locale_lib[128];

static void op_hello(long long id) {
    buf_t b = {0};
    bprintf(&b, "{\"id\":%lld,\"libraries\":[{\"name\":\"%s\",\"version\":\"%s\",\"protos\":[2,3],\"api\":", id,
            locale_lib[0] ? locale_lib : LIBNAME, VERSION);
    bjson_cstr(&b, API);
    bputs(&b, ",\"source\":");
    bjson_cstr(&b, SOURCE);
    if (locale_lib[0]) {
        bputs(&b, "}]}");
        send_line(&b);
        return;
    }
    bprintf(&b, "},{\"name\":\"%s/pipeline\",\"version\":\"%s\",\"protos\":[2,3],\"batch\":true,\"api\":", LIBNAME,
            VERSION);
    bjson_cstr(&b, BATCH_API);
    bputs(&b, ",\"source\":");
    bjson_cstr(&b, SOURCE);
    bprintf(&b, "},{\"name\":\"%s/pubsub\",\"version\":\"%s\",\"protos\":[2,3],\"pubsub\":\"same\",\"api\":", LIBNAME,
            VERSION);
    bjson_cstr(&b, PUBSUB_API);
    bputs(&b, ",\"source\":");
    bjson_cstr(&b, SOURCE);
    bputs(&b, "}]}");
    send_line(&b);
}

static void op_open(req_t *r) {
    if (locale_lib[0] ? !r->lib || strcmp(r->lib, locale_lib) != 0
                      : !r->lib || (strcmp(r->lib, LIBNAME) != 0 && strcmp(r->lib, LIBNAME "/pipeline") != 0 &&
                                    strcmp(r->lib, LIBNAME "/pubsub") != 0))
        return send_simple(r->id, "error", "unknown library");
    if (!r->session || !r->addr) return send_simple(r->id, "error", "open needs session and addr");
    const char *colon = strrchr(r->addr, ':');
    if (colon == NULL || (size_t)(colon - r->addr) >= sizeof ((session_t *)0)->host)
        return send_simple(r->id, "error", "bad addr");
    session_t *s = calloc(1, sizeof *s);
    if (s == NULL) die("out of memory");
    s->id = strdup(r->session);
    memcpy(s->host, r->addr, colon - r->addr);
    s->port = atoi(colon + 1);
    s->proto = (int)r->proto;
    s->batch = strcmp(r->lib, LIBNAME "/pipeline") == 0;
    s->pubsub = strcmp(r->lib, LIBNAME "/pubsub") == 0;
    s->next = sessions;
    sessions = s;
    send_simple(r->id, "ok", NULL);
}

/* op_do queues a "do", or (the /pubsub configuration) a "subscribe" or a
 * "next" (sub: 1, 2). */
static void op_do(req_t *r, int sub) {
    session_t *s = r->session ? find_session(r->session) : NULL;
    if (s == NULL) return send_simple(r->id, "error", "no such session");
    if (sub && !s->pubsub) return send_simple(r->id, "error", "library has no subscribe API");
    if (r->nargs == 0 && sub != 2) return send_simple(r->id, "error", "do needs args");
    conn_t *c = conn_of(s, r->conn ? r->conn : "default");
    job_t *j = calloc(1, sizeof *j);
    if (j == NULL) die("out of memory");
    j->id = r->id;
    j->argc = r->nargs;
    j->argv = r->args;
    j->lens = r->lens;
    j->sub = sub == 1, j->next_item = sub == 2, j->wait_ms = r->wait_ms;
    r->args = NULL, r->lens = NULL, r->nargs = 0; /* the job owns them */
    enqueue(c, j);
}

/* op_batch queues a "batch" (mode pipeline or multi) on its connection. */
static void op_batch(req_t *r) {
    session_t *s = r->session ? find_session(r->session) : NULL;
    if (s == NULL) return send_simple(r->id, "error", "no such session");
    if (!s->batch) return send_simple(r->id, "error", "library has no batch op");
    int multi = r->mode && strcmp(r->mode, "multi") == 0;
    if (!multi && !(r->mode && strcmp(r->mode, "pipeline") == 0)) return send_simple(r->id, "error", "unknown batch mode");
    if (r->ncmds == 0) return send_simple(r->id, "error", "batch needs cmds");
    conn_t *c = conn_of(s, r->conn ? r->conn : "default");
    job_t *j = calloc(1, sizeof *j);
    if (j == NULL) die("out of memory");
    j->id = r->id;
    j->batch = 1, j->batch_multi = multi;
    j->ncmds = r->ncmds, j->cmds = r->cmds;
    r->cmds = NULL, r->ncmds = 0; /* the job owns them */
    enqueue(c, j);
}

static void handle(const char *line, size_t n) {
    req_t r;
    if (parse_request(line, n, &r) < 0) {
        fprintf(stderr, "hiredis adapter: bad request: %.*s\n", (int)(n > 200 ? 200 : n), line);
        if (r.id >= 0) send_simple(r.id, "error", "bad request");
        free_req(&r);
        return;
    }
    if (r.op == NULL) send_simple(r.id, "error", "no op");
    else if (strcmp(r.op, "hello") == 0) op_hello(r.id);
    else if (strcmp(r.op, "open") == 0) op_open(&r);
    else if (strcmp(r.op, "do") == 0) op_do(&r, 0);
    else if (strcmp(r.op, "subscribe") == 0) op_do(&r, 1);
    else if (strcmp(r.op, "next") == 0) op_do(&r, 2);
    else if (strcmp(r.op, "batch") == 0) op_batch(&r);
    else if (strcmp(r.op, "close") == 0) {
        if (r.session) close_session(r.session);
        send_simple(r.id, "ok", NULL);
    } else {
        char msg[64];
        snprintf(msg, sizeof msg, "unknown op %.40s", r.op);
        send_simple(r.id, "error", msg);
    }
    free_req(&r);
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    const char *loc = getenv("RESPCHECK_LOCALE");
    if (loc && *loc) {
        if (setlocale(LC_ALL, "") == NULL) {
            fprintf(stderr, "hiredis adapter: setlocale(LC_ALL, \"\") failed for LC_ALL=%s (LOCPATH=%s): the locale is not installed (scripts/install-clients.sh --only locale)\n",
                    getenv("LC_ALL") ? getenv("LC_ALL") : "", getenv("LOCPATH") ? getenv("LOCPATH") : "");
            exit(2);
        }
        snprintf(locale_lib, sizeof locale_lib, "%s[LC_ALL=%s]", LIBNAME, loc);
        c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        if (c_locale == (locale_t)0) die("newlocale(C) failed");
    }
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        if (n > 0) handle(line, (size_t)n);
    }
    free(line);
    pthread_mutex_lock(&out_mu);
    fflush(stdout);
    _exit(0);
}
