#!/usr/bin/perl
# repro: what adapters/perl/adapter.pl found in Redis::Fast 0.34 (Debian
# libredis-fast-perl, hiredis 0.14 inside) through respcheck clients, shown
# with Redis::Fast alone: (1) an error element inside an array reply (an
# EVAL table, an EXEC) makes the whole call die with that error, the other
# elements lost; (2) an error reply with an empty text dies "[EVAL] ,  at
# ..."; (3) HELLO 3 through the generic call: the RESP3 map is not read, the
# connection is dropped ("Not connected to any server"); (4) SUBSCRIBE
# through the generic call returns undef and sends nothing, and every later
# call on that object returns undef and sends nothing.
# usage: perl adapters/perl/repro.pl 127.0.0.1:PORT
# (cmd/respcheck's TestPerlAdapter runs it against a redis-8.6.3 it starts.)
use strict; use warnings; use Redis::Fast; use Data::Dumper;
$Data::Dumper::Useqq = 1; $Data::Dumper::Terse = 1; $Data::Dumper::Indent = 0;
my $addr = shift || '127.0.0.1:6379';
sub try_cmd { my ($r, $cmd, @a) = @_; my $v = eval { scalar $r->$cmd(@a) };
  printf "  %-45s -> %s\n", join(' ', $cmd, map { length > 30 ? substr($_,0,30).'...' : $_ } @a),
    $@ ? 'DIE ' . (split /\n/, $@)[0] : Dumper($v); }

print "1. an error element inside an array: the whole call dies with it (other elements lost)\n";
my $r = Redis::Fast->new(server => $addr);
try_cmd($r, 'EVAL', q{return {1, redis.error_reply('boom'), 'three'}}, 0);   # *3 :1 -ERR boom $5 three
$r->del('rk'); $r->set('rk', 'notanumber');
try_cmd($r, 'MULTI'); try_cmd($r, 'INCR', 'rk'); try_cmd($r, 'GET', 'rk');
try_cmd($r, 'EXEC');                                                          # *2 -ERR ... $10 notanumber
try_cmd($r, 'ECHO', 'still-in-sync');

print "2. an error with an empty text: the die is '[EVAL] ,  at .../Redis/Fast.pm line N.'\n";
try_cmd($r, 'EVAL', q{return {err=''}}, 0);                                   # -\r\n
try_cmd($r, 'EVAL', q{return redis.error_reply('')}, 0);                     # -ERR \r\n

print "3. HELLO 3 through the generic call: hiredis 0.14 cannot read the map, the connection is dropped\n";
my $h = Redis::Fast->new(server => $addr);
try_cmd($h, 'HELLO', 3);                                                      # %7 ...
try_cmd($h, 'ECHO', 'after-hello');

print "4. SUBSCRIBE through the generic call: undef, nothing sent; every later call undef, nothing sent\n";
my $s = Redis::Fast->new(server => $addr);
try_cmd($s, 'ECHO', 'before');
try_cmd($s, 'SUBSCRIBE', 'ch');
try_cmd($s, 'PING');
try_cmd($s, 'GET', 'rk');
my $mon = Redis::Fast->new(server => $addr);
print "  (another connection) PUBSUB NUMSUB ch -> ", Dumper(scalar $mon->pubsub('NUMSUB', 'ch')), "\n";
