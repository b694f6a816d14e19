# A small application of the kinds the seed articles describe, driven by
# redis-py against the address in argv[1] (respcheck capture's proxy in
# runner/capture's TestCaptureReplays): a rate limiter (INCR + EXPIRE), an
# optimistic update with WATCH/MULTI/EXEC, one with SET IFEQ and DIGEST
# where the server has them, a Lua script, a pipeline, and a pub/sub
# subscriber with a publisher on another connection.
import sys
import redis

host, port = sys.argv[1].rsplit(":", 1)
r = redis.Redis(host=host, port=int(port), socket_timeout=10)

for _ in range(3):
    if r.incr("rl:user1") == 1:
        r.expire("rl:user1", 60)

with r.pipeline() as p:
    p.watch("balance")
    cur = int(p.get("balance") or 0)
    p.multi()
    p.set("balance", cur + 10)
    p.execute()

r.set("doc", "v1")
try:
    digest = r.execute_command("DIGEST", "doc")
    r.execute_command("SET", "doc", "v2", "IFDEQ", digest)
    r.execute_command("SET", "doc", "v3", "IFEQ", "v2")
except redis.ResponseError as e:  # an older server: no DIGEST, IFEQ
    print("no conditional SET:", e)

r.eval("return redis.call('INCRBY', KEYS[1], ARGV[1])", 1, "counter", 5)

p = r.pipeline(transaction=False)
p.hset("h", mapping={"a": "1", "b": "2"})
p.hgetall("h")
p.lpush("q", "x", "y")
p.lrange("q", 0, -1)
p.execute()

ps = r.pubsub()
ps.subscribe("news")
ps.get_message(timeout=1)
r.publish("news", "hello")
for _ in range(50):
    m = ps.get_message(timeout=0.1)
    if m:
        print("message", m["data"])
        break
ps.close()
print("done", r.get("counter"), r.get("doc"))
