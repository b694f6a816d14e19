# repro: redis-rb 4.8.0 Redis#call("SUBSCRIBE", ch) returns the confirmation, then hands the next frame the server sends on the subscribed connection (a published "message") to the next call as its reply, so replies arrive one call late.
# finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [redis-rb-4.8.0/resp2]
# finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [redis-rb-4.8.0/resp2]
# finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [redis-rb-4.8.0/resp2]
# finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [redis-rb-4.8.0/resp2]
# finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [redis-rb-4.8.0/resp2]
# finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [redis-rb-4.8.0/resp2]
# run: ruby
# expect: (?s)SUBSCRIBE DECODED: \["subscribe", "repro:ch", 1\]\n.*UNSUBSCRIBE DECODED: \["message", "repro:ch", "hello"\]\nPING next DECODED: \["unsubscribe", "repro:ch", 0\]\n
require_relative 'lib'

sub = client
pub = client
step('SUBSCRIBE', sub, 'SUBSCRIBE', 'repro:ch')
step('PUBLISH (other connection)', pub, 'PUBLISH', 'repro:ch', 'hello')
sleep 0.1
step('UNSUBSCRIBE', sub, 'UNSUBSCRIBE', 'repro:ch')
step('PING next', sub, 'PING')
