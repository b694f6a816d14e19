# repro: redis-rb 4.8.0 speaks RESP2 only: Redis#call("HELLO", "3") raises Redis::ProtocolError on the map reply (its reader knows - + : $ *, lib/redis/connection/ruby.rb format_reply) and drops the connection; the next call reconnects in RESP2.
# finds: faults/HELLO 3 through a RESP2 connection [redis-rb-4.8.0/resp2]
# finds: protocol-switch/map from HELLO 3 then flat array from HELLO 2 on one connection, with null then nil [redis-rb-4.8.0/resp2]
# finds: protocol-switch/RESP2 replies after HELLO 2, then RESP3 replies after HELLO 3 [redis-rb-4.8.0/resp2]
# finds: protocol-switch/simple string RESET after HELLO 3, then RESP2 replies [redis-rb-4.8.0/resp2]
# finds: protocol-switch/HELLO 3 with SETNAME, then the name as a blob string [redis-rb-4.8.0/resp2]
# run: ruby
# expect: HELLO 3 THROWN: Redis::ProtocolError: " Got '%' as initial reply byte.*\nPING next DECODED: "PONG"\n
require_relative 'lib'

r = client
step('HELLO 3', r, 'HELLO', '3')
step('PING next', r, 'PING')
