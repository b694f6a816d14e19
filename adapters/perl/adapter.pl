#!/usr/bin/perl
# respcheck adapter for Perl's Redis::Fast (Debian libredis-fast-perl), written
# from docs/adapters.md: JSON lines on stdin/stdout, one response per request.
#
#   respcheck clients --adapter "perl adapters/perl/adapter.pl" --clients redis-fast CASES...
#
# Library: redis-fast-<version> (generic API only, RESP2 only).
#  - Generic call: the command name as a method, `scalar $r->$CMD(@args)`,
#    which Redis::Fast's AUTOLOAD turns into __std_cmd(split /_/, uc CMD, @args)
#    and dies (Carp::confess "[CMD] $error, ") when __std_cmd reports an error.
#    Scalar context: an array reply comes back as an ARRAY ref (list context
#    would flatten it and lose nil-array vs empty-array).
#  - RESP3: Redis::Fast 0.34 is built on Debian's hiredis 0.14, whose reader
#    knows only the RESP2 types, and Redis::Fast never sends HELLO: protos [2].
#  - Perl scalars carry no "type"; the adapter reads the SV flags with B:
#    IOK without POK is an integer (type "IV"), NOK without POK a float ("NV"),
#    POK a string; a string without the UTF8 flag is a byte string (kind
#    "bytes", type "PV"), with it a text string (kind "string", type "PV/utf8").
#  - A die: Redis::Fast gives the same "[CMD] text, at ..." die for a server
#    error reply and for its own failures ("Not connected to any server", ...).
#    The adapter calls it "exception" when the text is one of Redis::Fast's or
#    hiredis's own messages, or the die does not come from AUTOLOAD's confess,
#    and "error" otherwise. The message reported is the die's first line.
use strict;
use warnings;
use JSON::PP;
use MIME::Base64 qw(encode_base64 decode_base64);
use B;
use Encode ();

$| = 1;
binmode STDIN;
binmode STDOUT;

my $json = JSON::PP->new->utf8->canonical;

my ($lib_name, $lib_version, $load_error) = ('redis-fast', '', undef);
eval { require Redis::Fast; $lib_version = $Redis::Fast::VERSION; 1 }
    or $load_error = "cannot load Redis::Fast: " . (split /\n/, "$@")[0];
$lib_name .= "-$lib_version" if $lib_version ne '';

my %sessions;    # session id => { addr, proto, conns => { name => Redis::Fast } }

# Messages Redis::Fast (Fast.xs) and hiredis 0.14 produce themselves: a die
# with one of these is the library failing, not a server error reply.
my $own_error_re = qr{
    ^(?: Not\ connected\ to\ any\ server
       | EOF\ from\ server
       | connection\ error
       | connect\ error
       | hiredis\ returns\ error
       | redis\ server\ has\ alread(?:y)?\ shutdown
       | failed\ to\ connect
       | allocation\ error
       | wait_all_responses\ not\ ok
       | Server\ closed\ the\ connection
       | Protocol\ error
       | Bad\ (?:integer|bulk|multi-bulk)
       | Invalid\ timeout
       | timeout
       | Cannot\ use\ command
       | Error\ while
     )
}x;

sub text_of {
    my ($s) = @_;
    my $copy = "$s";
    return Encode::decode('UTF-8', $copy, Encode::FB_DEFAULT());
}

sub native {
    my ($v) = @_;
    return { kind => 'nil', type => 'undef' } unless defined $v;
    if (my $ref = ref $v) {
        if ($ref eq 'ARRAY') {
            return { kind => 'list', type => 'ARRAY', elems => [ map { native($_) } @$v ] };
        }
        if ($ref eq 'HASH') {
            return { kind => 'map', type => 'HASH',
                     pairs => [ map { [ native($_), native($v->{$_}) ] } sort keys %$v ] };
        }
        return { kind => 'other', type => $ref, text => text_of("$v") };
    }
    my $flags = B::svref_2object(\$v)->FLAGS;
    my $pok = $flags & B::SVf_POK;
    if (!$pok && ($flags & B::SVf_IOK)) {
        return { kind => 'int', type => 'IV', text => "$v" };
    }
    if (!$pok && ($flags & B::SVf_NOK)) {
        return { kind => 'float', type => 'NV', text => "$v" };
    }
    if (utf8::is_utf8($v)) {
        return { kind => 'string', type => 'PV/utf8', text => $v };
    }
    return { kind => 'bytes', type => 'PV', b64 => encode_base64($v, '') };
}

sub die_native {
    my ($err) = @_;
    if (ref $err) {
        return { kind => 'exception', type => ref($err),
                 error => { class => ref($err), message => text_of("$err") } };
    }
    my $msg = "$err";
    my ($first) = split /\n/, $msg, 2;
    $first = '' unless defined $first;
    my $kind = 'exception';
    # AUTOLOAD: confess "[$command] $error, " -> "[CMD] text,  at FILE line N."
    if ($first =~ /^\[[^\]]*\] (.*),  at \S+ line \d+(?:, <[^>]*> (?:line|chunk) \d+)?\.?$/s) {
        my $inner = $1;
        $kind = 'error' unless $inner =~ $own_error_re;
    }
    return { kind => $kind, type => 'die string',
             error => { class => 'die', message => text_of($first) } };
}

sub conn_for {
    my ($s, $name) = @_;
    return $s->{conns}{$name} if $s->{conns}{$name};
    my $r = Redis::Fast->new(server => $s->{addr});
    $s->{conns}{$name} = $r;
    return $r;
}

sub reply { print $json->encode($_[0]), "\n"; }

sub handle {
    my ($req) = @_;
    my $id = $req->{id};
    my $op = $req->{op} // '';
    if ($op eq 'hello') {
        my %lib = (
            name    => $lib_name,
            version => $lib_version,
            protos  => [2],
            source  => 'Debian libredis-fast-perl (Redis::Fast ' . ($lib_version || '?') . ', hiredis 0.14)',
            api     => '$r->$CMD(@args) (AUTOLOAD)',
            note    => 'generic API: $r->$CMD(@args) in scalar context (AUTOLOAD); RESP2 only (hiredis 0.14 reader)',
        );
        $lib{error} = $load_error if defined $load_error;
        return { id => $id, libraries => [ \%lib ] };
    }
    if ($op eq 'open') {
        return { id => $id, error => "unknown library $req->{lib}" } if ($req->{lib} // '') ne $lib_name;
        return { id => $id, error => "Redis::Fast speaks RESP2 only" } if ($req->{proto} // 2) != 2;
        my $s = { addr => $req->{addr}, proto => $req->{proto}, conns => {} };
        $sessions{ $req->{session} } = $s;
        my $ok = eval { conn_for($s, 'default'); 1 };
        return { id => $id, error => 'connect: ' . (split /\n/, "$@")[0] } unless $ok;
        return { id => $id, ok => JSON::PP::true };
    }
    if ($op eq 'do') {
        my $s = $sessions{ $req->{session} // '' }
            or return { id => $id, error => "no session $req->{session}" };
        my @args = map { decode_base64($_) } @{ $req->{args} || [] };
        return { id => $id, error => 'no command' } unless @args;
        my $r = eval { conn_for($s, $req->{conn} // 'default') };
        return { id => $id, value => die_native($@) } unless $r;
        my $cmd = shift @args;
        my $v;
        my $ok = eval { $v = scalar $r->$cmd(@args); 1 };
        return { id => $id, value => $ok ? native($v) : die_native($@) };
    }
    if ($op eq 'close') {
        # Dropping the last reference closes the socket (Redis::Fast's DESTROY);
        # quit() would send one more command, QUIT, through the proxy.
        my $s = delete $sessions{ $req->{session} // '' };
        %{ $s->{conns} } = () if $s;
        return { id => $id, ok => JSON::PP::true };
    }
    return { id => $id, error => 'unknown op' };
}

# sysread, not <STDIN>: a die after a readline names the handle ("<STDIN>
# line N."), which is the adapter's, not something a user of the library sees.
my $buf = '';
while (1) {
    my $nl = index($buf, "\n");
    if ($nl < 0) {
        my $n = sysread(STDIN, $buf, 65536, length $buf);
        last unless $n;
        next;
    }
    my $line = substr($buf, 0, $nl + 1, '');
    next unless $line =~ /\S/;
    my $req = eval { $json->decode($line) };
    if (!$req) {
        print STDERR "bad request line: $line";
        next;
    }
    my $resp = eval { handle($req) };
    $resp = { id => $req->{id}, error => 'adapter: ' . (split /\n/, "$@")[0] } unless $resp;
    reply($resp);
}
