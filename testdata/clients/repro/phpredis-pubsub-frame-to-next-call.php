<?php
// repro: phpredis 5.3.7 rawCommand('SUBSCRIBE', ch) returns the confirmation, then hands the next frame the server sends on the subscribed connection (a published "message") to the next call as its reply, so replies arrive one call late.
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [phpredis-5.3.7/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [phpredis-5.3.7/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [phpredis-5.3.7/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [phpredis-5.3.7/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [phpredis-5.3.7/resp2]
// finds: pubsub/SUBSCRIBE confirmation, then a message published on another connection [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: pubsub/PSUBSCRIBE confirmation, then a pmessage naming the pattern and the channel [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: pubsub/channel and pattern on one connection, a message and a pmessage for one PUBLISH [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: pubsub/UNSUBSCRIBE without arguments answering two confirmations, then plain replies [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: tracking/message with an array payload on __redis__:invalidate through REDIRECT [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [phpredis-5.3.7/resp2]
// finds: pubsub/UNSUBSCRIBE of two channels on a connection subscribed to none, then PING [phpredis-5.3.7[OPT_REPLY_LITERAL=true,OPT_NULL_MULTIBULK_AS_NULL=true]/resp2]
// run: php
// expect: (?s)SUBSCRIBE DECODED: \["subscribe","repro:ch",1\].*UNSUBSCRIBE DECODED: \["message","repro:ch","hello"\].*PING next DECODED: \["unsubscribe","repro:ch",0\]
require __DIR__ . '/lib.php';

$sub = client();
$pub = client();
step('SUBSCRIBE', $sub, 'SUBSCRIBE', 'repro:ch');
step('PUBLISH (other connection)', $pub, 'PUBLISH', 'repro:ch', 'hello');
usleep(100000);
step('UNSUBSCRIBE', $sub, 'UNSUBSCRIBE', 'repro:ch');
step('PING next', $sub, 'PING');
