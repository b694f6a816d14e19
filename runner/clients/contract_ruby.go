package clients

func addRedisRbContract(m map[string]*contract) {
	m["redis-rb"] = newContract("redis-rb", []string{
		"RESP2 only: the reader knows - + : $ * and raises Redis::ProtocolError for any other type byte (redis 4.8.0 lib/redis/connection/ruby.rb format_reply)",
		"blob and simple strings are String (blob strings tagged with Encoding.default_external, simple strings binary), integers Integer, nils nil, arrays Array; " +
			"a top-level error is raised as Redis::CommandError, an error element is returned as one (lib/redis/client.rb call, connection/ruby.rb format_error_reply)",
		"simple strings and errors are String#strip'ed (connection/ruby.rb format_status_reply, format_error_reply: line.strip): surrounding spaces are lost",
	}, nil)
}

// The "/pipeline" configurations of hiredis, redis-rb and phpredis
// (adapters/hiredis/adapter.c, adapters/ruby/adapter.rb,
// adapters/php/adapter.php): each decodes as its library does, with notes
// on what its batch API gives for each command (after the contracts they
// derive from: see buildContracts).
func addPipelineContracts(m map[string]*contract) {
	m["hiredis-"+hiredisVersion+"/pipeline"] = m["hiredis"].derive("hiredis/pipeline",
		"batch: redisAppendCommandArgv per command (MULTI and EXEC around a transaction's), then redisGetReply per command (hiredis.c __redisGetReply): "+
			"every reply is the application's, a queued command's value is its own reply (QUEUED or its queue-time error) and EXEC's reply is the transaction's value",
		"a redisGetReply that fails (REDIS_ERR, the context's err and errstr) leaves that command and every later one without a reply")
	m["redis-rb-4.8.0/pipeline"] = m["redis-rb"].derive("redis-rb/pipeline",
		"batch: Redis#pipelined and Redis#multi with a block of call(*args), each returning a Redis::Future (redis 4.8.0 lib/redis.rb pipelined, multi; lib/redis/pipeline.rb)",
		"pipelined raises the first Redis::CommandError among the replies and sets no future (lib/redis/client.rb call_pipelined: exception = reply if exception.nil? && reply.is_a?(CommandError); raise exception): every command gets that error",
		"multi raises the first queue-time error where the server answers EXECABORT (call_pipelined, the same), and the first error element of EXEC's array (lib/redis/pipeline.rb Multi#finish: Future#_set raises it); it returns nil after a WATCH conflict",
	)
	php := m["phpredis"].derive("phpredis/pipeline",
		"batch: multi(Redis::PIPELINE) or multi(), rawCommand(...$args) per command, exec(): one value per command in exec()'s array",
		"an error reply is false in exec()'s array, its text kept only if it is the last error (getLastError()): the error is lost",
		"exec() of a transaction aborted by WATCH (EXEC's nil array) is false",
	)
	php.Conversions = append(php.Conversions, phpredisWatch) // derive copied the notes of the others
	php.Notes = append(php.Notes, "converted: "+phpredisWatch.Name+" ("+phpredisWatch.Source+")")
	m["phpredis-5.3.7/pipeline"] = php
}

// The "/pubsub" configurations of hiredis, redis-rb and phpredis: each
// decodes as its library does, with notes on what its subscribe API
// delivers (adapters/hiredis/adapter.c, adapters/ruby/adapter.rb,
// adapters/php/adapter.php).
func addPubsubContracts(m map[string]*contract) {
	m["hiredis-"+hiredisVersion+"/pubsub"] = m["hiredis"].derive("hiredis/pubsub",
		"subscribe: redisAppendCommandArgv, then redisGetReply in a loop (hiredis README \"Pipelining\": a blocking subscriber); in RESP3 with no push handler while it reads (README \"RESP3 PUSH replies\": redisSetPushCallback(c, NULL) for SUBSCRIBE workloads), so that a push comes back from redisGetReply",
		"a delivered frame is the redisReply itself (REDIS_REPLY_ARRAY in RESP2, REDIS_REPLY_PUSH in RESP3): element 0 the kind, then channel, pattern, payload, count or keys by position",
		"the pushes other calls meet go to the push handler (redisSetPushCallback, hiredis.c redisHandledPushReply), which keeps them for the push steps")
	m["redis-rb-4.8.0/pubsub"] = m["redis-rb"].derive("redis-rb/pubsub",
		"subscribe: Redis#subscribe/#psubscribe with a block; each confirmation and message reaches its Subscription callback (on.subscribe(channel, count), on.message(channel, message), on.pmessage(pattern, channel, message), ...) on the connection's thread (redis 4.8.0 lib/redis/subscribe.rb)",
		"inside the block only the subscribe family runs (SubscribedClient#call sends without reading a reply; no pong callback); the block ends on a confirmation of its own stop kind with count 0 (unsubscribe for subscribe, punsubscribe for psubscribe); no SSUBSCRIBE, no client-side caching")
	m["phpredis-5.3.7/pubsub"] = m["phpredis"].derive("phpredis/pubsub",
		"subscribe: Redis::subscribe/psubscribe($channels, $callback) read and check the confirmations themselves and hand the user none, then block calling $callback($redis, [$pattern,] $channel, $message) per message (phpredis 5.3.7 library.c redis_subscribe_response); a frame that is neither message nor pmessage ends the loop",
		"inside the callback only Redis::unsubscribe/punsubscribe run (they read their confirmations and return [channel => true]: the count is lost); no SSUBSCRIBE, no client-side caching")
}
