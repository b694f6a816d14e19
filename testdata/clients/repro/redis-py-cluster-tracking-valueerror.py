# repro: redis-py 6.4.0's RedisCluster in RESP3: execute_command("CLIENT", "TRACKING", "on") raises "ValueError: range() arg 3 must not be zero" (the command has no key to route by); against a cluster of 3 primaries.
# cluster: true
# finds: pushes/invalidate push between a simple string reply and a blob string reply [redis-py-6.4.0/cluster/resp3]
# finds: pushes/invalidate push between two pipelined replies [redis-py-6.4.0/cluster/resp3]
# finds: pushes/two invalidate pushes in a row before an integer reply [redis-py-6.4.0/cluster/resp3]
# finds: tracking/invalidate push for a BCAST prefix, before an integer reply [redis-py-6.4.0/cluster/resp3]
# finds: tracking/invalidate push under OPTIN for the key read after CLIENT CACHING yes only [redis-py-6.4.0/cluster/resp3]
# finds: tracking/invalidate push with a null key list after FLUSHDB [redis-py-6.4.0/cluster/resp3]
# run: python-6.4.0
# expect: RESP3 CLIENT TRACKING on THROWN: ValueError: range\(\) arg 3 must not be zero
import sys
from redis.cluster import RedisCluster
from lib import timed
host, port = sys.argv[1].rsplit(':', 1)
c = RedisCluster(host=host, port=int(port), protocol=3)
timed('RESP3 CLIENT TRACKING on', lambda: c.execute_command('CLIENT', 'TRACKING', 'on'))
