# frozen_string_literal: true

# respcheck client-view adapter for Ruby's redis gem (redis-rb).
#
# Speaks respcheck's JSON-lines protocol (see runner/clients/adapter.go) on
# stdin/stdout; logs go to stderr. Each named case connection is its own
# Redis.new (one connection, connected on its first call), driven by a thread
# of its own so that a blocked call does not hold up the others; a step is
# Redis#call(*args), the gem's generic command API, exactly as an application
# would call it. Values are reported as the gem returns them (String with its
# encoding, Integer, nil, Array, Redis::CommandError); nothing is normalised.
# redis-rb 4.x speaks RESP2 only (its reader knows - + : $ *), so the library
# is offered for RESP2 alone.
#
# The configuration redis-rb-4.8.0/pipeline also answers "batch": a pipeline
# is Redis#pipelined { |pipe| pipe.call(*args) ... }, a transaction
# Redis#multi { |tx| tx.call(*args) ... }, each block's calls returning a
# Redis::Future. The batch returns every value, or raises: pipelined raises
# the first Redis::CommandError among the replies (lib/redis/client.rb
# call_pipelined) and sets no future; multi raises the first queue-time
# error before EXEC's EXECABORT (the same), EXEC's own error, or the first
# error element of EXEC's array (lib/redis/pipeline.rb Multi#finish, whose
# Future#_set raises it), and returns nil after a WATCH conflict. A
# command's value is its future's, where the batch set it, else what the
# batch raised (or returned) as a whole.
#
# The configuration redis-rb-4.8.0/pubsub also answers "subscribe" and
# "next" through the gem's subscribe API: Redis#subscribe / #psubscribe
# with a block whose on.subscribe, on.message, on.pmessage, ... callbacks
# run on the connection's thread, which the block holds until the gem
# leaves it (lib/redis/subscribe.rb SubscribedClient#subscription: on a
# confirmation of the block's own stop kind, unsubscribe for subscribe and
# punsubscribe for psubscribe, with count 0). As redis-rb users do, what
# the subscribed client does next is decided inside those callbacks: each
# one delivers its item and then takes the connection's next requests, a
# (p)(un)subscribe through Redis#subscribe, #psubscribe, #unsubscribe or
# #punsubscribe (which inside the block only send: the confirmation comes
# back through a callback) or a "next". Inside the block the gem runs no
# other command (SubscribedClient has no call that reads a reply, and a
# PING's pong reaches no callback of Subscription): those steps are
# unsupported, as are SSUBSCRIBE and SUNSUBSCRIBE (redis-rb 4.8.0 has
# neither) and invalidations (no client-side caching API). A "next" that
# finds nothing delivered lets the block read the next frame; a timer
# answers kind "none" when none comes within its wait.
#
# Run with ruby -E UTF-8 (respcheck does): the gem tags blob strings with
# Encoding.default_external, which otherwise depends on the locale.
require 'base64'
require 'json'
require 'redis'

NAME = "redis-rb-#{Redis::VERSION}"
BATCH = "#{NAME}/pipeline"
BATCH_API = 'Redis#pipelined { |pipe| pipe.call(*args) ... }, Redis#multi { |tx| tx.call(*args) ... }; other steps Redis#call(*args)'
PUBSUB = "#{NAME}/pubsub"
PUBSUB_API = 'Redis#subscribe/#psubscribe(*channels) { |on| on.subscribe, on.message, on.pmessage, on.unsubscribe, ... } ' \
             'on the connection\'s thread, then Redis#subscribe/#psubscribe/#unsubscribe/#punsubscribe from inside the ' \
             'callbacks; other steps Redis#call(*args)'

OUT_LOCK = Mutex.new
$stdout.sync = true

# debian_source names the Debian package a library comes from, with its
# version ("Debian ruby-redis 4.8.0-1"), or "" when dpkg does not know it.
def debian_source(pkg)
  v = IO.popen(['dpkg-query', '-W', '-f=${Version}', pkg], err: File::NULL, &:read).to_s.strip
  v.empty? ? '' : "Debian #{pkg} #{v}"
rescue StandardError
  ''
end

def log(*a)
  warn(a.join(' '))
end

def send_line(obj)
  line = JSON.generate(obj, max_nesting: false)
  OUT_LOCK.synchronize { $stdout.write(line + "\n") }
end

def payload(kind, type, s)
  bin = s.dup.force_encoding(Encoding::UTF_8)
  if bin.valid_encoding?
    { kind: kind, type: type, text: bin }
  else
    { kind: kind, type: type, b64: Base64.strict_encode64(s.b) }
  end
end

def error_native(kind, e)
  msg = e.message.dup.force_encoding(Encoding::UTF_8).scrub
  { kind: kind, type: e.class.name, error: { class: e.class.name, message: msg } }
end

# native describes a redis-rb value without normalising it.
def native(v, depth = 0)
  return { kind: 'other', type: v.class.name, text: '<too deep>' } if depth > 64

  case v
  when nil then { kind: 'nil', type: 'NilClass' }
  when true, false then { kind: 'bool', type: v.class.name, text: v.to_s }
  when Integer then { kind: 'int', type: 'Integer', text: v.to_s }
  when Float then { kind: 'float', type: 'Float', text: v.to_s }
  when String then payload('string', "String(#{v.encoding})", v)
  when Array then { kind: 'list', type: 'Array', elems: v.map { |e| native(e, depth + 1) } }
  when Hash
    { kind: 'map', type: 'Hash', pairs: v.map { |k, x| [native(k, depth + 1), native(x, depth + 1)] } }
  when Redis::CommandError then error_native('error', v)
  when Exception then error_native('exception', v)
  else { kind: 'other', type: v.class.name, text: v.inspect }
  end
end

# field is the Native of a delivered item's field name.
def field(name)
  { kind: 'string', type: 'field', text: name }
end

# unsupported is the Native of a step the library has no call for.
def unsupported(why)
  { kind: 'unsupported', type: 'unsupported', error: { class: 'unsupported', message: why } }
end

NONE = { kind: 'none', type: 'none' }.freeze
# SHARDED are the subscribe commands redis-rb 4.8.0 has no method for.
SHARDED = %w[ssubscribe sunsubscribe].freeze
INSIDE = 'redis-rb 4.8.0 runs only the subscribe family inside a subscribe block (lib/redis/subscribe.rb ' \
         'SubscribedClient: call sends without reading a reply; Subscription has no pong callback)'

# Subscriber is the "/pubsub" configuration's side of a Conn: the
# subscribe block and its callbacks (see the file's comment).
module Subscriber
  private

  # subscribe_outside runs a subscribe request while no block runs: a
  # (P)SUBSCRIBE starts one (returning when the gem leaves it); anything
  # else is what the gem does for it outside a block.
  def subscribe_outside(id, args)
    name = args[0].downcase
    return send_line(id: id, value: unsupported("redis-rb #{Redis::VERSION} has no #{name}")) if SHARDED.include?(name)
    return send_line(id: id, value: call_api(name, args[1..])) unless %w[subscribe psubscribe].include?(name)

    @awaiting = id
    @stop = name == 'subscribe' ? 'unsubscribe' : 'punsubscribe'
    begin
      client.public_send(name, *args[1..]) { |on| callbacks(on) }
    rescue StandardError => e
      log("subscribe block: #{e.class}: #{e.message}")
      send_line(id: @awaiting, value: native(e)) if @awaiting
    ensure
      @awaiting = nil
    end
  end

  # call_api sends a (p)(un)subscribe through the gem's method of that name
  # and returns what it returns (or raises: outside a block, unsubscribe
  # raises "Can't unsubscribe if not subscribed.").
  def call_api(name, channels)
    native(client.public_send(name, *channels))
  rescue StandardError => e
    native(e)
  end

  def callbacks(on)
    on.subscribe { |ch, n| deliver('subscribe', 'channel', ch, 'count', n) }
    on.psubscribe { |ch, n| deliver('psubscribe', 'channel', ch, 'count', n) }
    on.unsubscribe { |ch, n| deliver('unsubscribe', 'channel', ch, 'count', n) }
    on.punsubscribe { |ch, n| deliver('punsubscribe', 'channel', ch, 'count', n) }
    on.message { |ch, msg| deliver('message', 'channel', ch, 'payload', msg) }
    on.pmessage { |pat, ch, msg| deliver('pmessage', 'pattern', pat, 'channel', ch, 'payload', msg) }
  end

  # deliver is every callback: it answers the subscribe call waiting for
  # its confirmation, or the "next" waiting, or keeps the item; then, unless
  # the gem leaves the block after this callback, it takes the next requests.
  def deliver(kind, *fields)
    pairs = [[field('kind'), native(kind)]]
    fields.each_slice(2) { |k, v| pairs << [field(k), native(v)] }
    item = { kind: 'message', type: "Subscription##{kind} block arguments", pairs: pairs }
    confirmation = kind.end_with?('subscribe')
    @last_count = fields.last if confirmation
    if @awaiting && confirmation
      send_line(id: @awaiting, value: item)
      @awaiting = nil
    elsif !answer_pending(item)
      @items << item
    end
    return if confirmation && kind == @stop && fields.last.zero?

    serve
  end

  # answer_pending answers the "next" waiting with item, if one waits.
  def answer_pending(item)
    @pending.synchronize do
      return false unless @pending_id

      send_line(id: @pending_id, value: item)
      @pending_id = nil
      true
    end
  end

  # serve takes requests inside the block until one needs the block to
  # read the next frame (a subscribe call's confirmation, a "next" with
  # nothing kept).
  def serve
    while (req = @q.pop)
      id, args, mode = req
      case mode
      when :subscribe
        name = args[0].downcase
        if SHARDED.include?(name)
          send_line(id: id, value: unsupported("redis-rb #{Redis::VERSION} has no #{name}"))
          next
        end
        @awaiting = id
        client.public_send(name, *args[1..])
        return
      when :next
        return if wait_next(id, *args)
      else
        send_line(id: id, value: unsupported(inside_why))
      end
    end
    throw :closed
  end

  # inside_why is why a command has no call inside the block: INSIDE, and
  # why the block still runs after a confirmation of count 0 of the other
  # kind.
  def inside_why
    return INSIDE unless @last_count&.zero?

    "#{INSIDE}; the block still runs: the gem leaves it on a #{@stop} of count 0 only " \
      '(SubscribedClient#subscription: unsubscribed = type == stop && rest.last == 0)'
  end

  # wait_next answers a "next" with a kept item (false: serve goes on), or
  # leaves it waiting for the next callback, with a timer that answers
  # "none" after wait_ms (true).
  def wait_next(id, kind, wait_ms)
    if !@items.empty? || kind == 'invalidate'
      send_line(id: id, value: next_outside(kind, wait_ms))
      return false
    end
    @pending.synchronize { @pending_id = id }
    Thread.new do
      sleep(wait_ms / 1000.0)
      @pending.synchronize do
        if @pending_id == id
          send_line(id: id, value: NONE)
          @pending_id = nil
        end
      end
    end
    true
  end

  # next_outside answers a "next" while no block runs: a kept item, else
  # nothing the gem can deliver.
  def next_outside(kind, _wait_ms)
    return @items.shift unless @items.empty? || kind == 'invalidate'
    return unsupported("redis-rb #{Redis::VERSION} has no client-side caching or push API") if kind == 'invalidate'

    unsupported("redis-rb #{Redis::VERSION} delivers #{kind} frames inside a subscribe block only, and none runs")
  end
end

# Conn is one pinned case connection: one Redis client, one thread.
class Conn
  include Subscriber

  def initialize(host, port)
    @host = host
    @port = port
    @q = Queue.new
    @items = []
    @pending = Mutex.new
    @thread = Thread.new { loop_calls }
  end

  def push(id, args)
    @q << [id, args]
  end

  def push_batch(id, mode, cmds)
    @q << [id, cmds, mode]
  end

  # push_sub queues a "subscribe" (op :subscribe, payload its args) or a
  # "next" (op :next, payload [kind, wait_ms]).
  def push_sub(id, op, payload)
    @q << [id, payload, op]
  end

  def close
    @q << nil
  end

  private

  def client
    # timeout: respcheck enforces the deadline (hang); no retry of a call
    # that failed (it would send the command again).
    @client ||= Redis.new(host: @host, port: @port, timeout: 3600, connect_timeout: 5,
                          reconnect_attempts: 0)
  end

  def loop_calls
    catch(:closed) { run_calls }
    @client&.close
  rescue StandardError => e
    log("connection thread: #{e.class}: #{e.message}")
  end

  def run_calls
    while (item = @q.pop)
      id, args, mode = item
      case mode
      when nil then send_line(id: id, value: call(args))
      when :subscribe then subscribe_outside(id, args)
      when :next then send_line(id: id, value: next_outside(*args))
      else send_line(id: id, **batch(mode, args))
      end
    end
  end

  # batch runs cmds through pipelined (mode "pipeline") or multi (mode
  # "multi"): each command's value is its future's when the batch set it,
  # else the batch's own outcome (the error it raised, the nil of an
  # aborted WATCH), which is also the transaction's ("exec").
  def batch(mode, cmds)
    futures = []
    whole = nil
    begin
      block = proc { |b| cmds.each { |a| futures << b.call(*a) } }
      res = mode == 'multi' ? client.multi(&block) : client.pipelined(&block)
      return { values: res.map { |v| native(v) } } if res.is_a?(Array) && res.size == cmds.size

      whole = native(res)
    rescue Redis::CommandError => e
      whole = native(e)
    rescue StandardError => e
      log("batch: #{e.class}: #{e.message}")
      whole = native(e)
    end
    values = cmds.each_index.map { |i| i < futures.size ? future_value(futures[i], whole) : whole }
    out = { values: values }
    out[:exec] = whole if mode == 'multi'
    out
  end

  # future_value is what Future#value gives (or raises), or whole for a
  # future the batch did not set (a Redis::Future is a BasicObject: no
  # nil? nor is_a? of its own).
  def future_value(future, whole)
    native(future.value)
  rescue Redis::FutureNotReady
    whole
  rescue Redis::CommandError => e
    native(e)
  end

  def call(args)
    native(client.call(*args))
  rescue Redis::CommandError => e
    native(e)
  rescue StandardError => e
    log("#{e.class}: #{e.message}\n#{e.backtrace&.first(5)&.join("\n")}")
    native(e)
  end
end

# Session is one case: its named connections.
class Session
  attr_reader :batch, :pubsub

  def initialize(addr, lib)
    @host, port = addr.split(/:(?=[^:]*\z)/)
    @port = port.to_i
    @batch = lib == BATCH
    @pubsub = lib == PUBSUB
    @conns = {}
  end

  def conn(name)
    @conns[name] ||= Conn.new(@host, @port)
  end

  def close
    @conns.each_value(&:close)
  end
end

# arg is a command argument as an application passes it: a String (binary).
def arg(b64)
  Base64.strict_decode64(b64)
end

def handle(req, sessions)
  id = req['id']
  case req['op']
  when 'hello'
    source = debian_source('ruby-redis')
    send_line(id: id, libraries: [{ name: NAME, version: Redis::VERSION, protos: [2], api: 'Redis#call(*args)', source: source },
                                  { name: BATCH, version: Redis::VERSION, protos: [2], batch: true, api: BATCH_API,
                                    source: source },
                                  { name: PUBSUB, version: Redis::VERSION, protos: [2], pubsub: 'same', api: PUBSUB_API,
                                    source: source }])
  when 'open'
    return send_line(id: id, error: "unknown library #{req['lib']}") unless [NAME, BATCH, PUBSUB].include?(req['lib'])
    return send_line(id: id, error: 'redis-rb 4.x speaks RESP2 only') if req['proto'] != 2

    sessions[req['session']] = Session.new(req['addr'], req['lib'])
    send_line(id: id, ok: true)
  when 'batch'
    s = sessions[req['session']]
    return send_line(id: id, error: "no session #{req['session']}") unless s
    return send_line(id: id, error: 'library has no batch op') unless s.batch
    return send_line(id: id, error: "unknown batch mode #{req['mode']}") unless %w[pipeline multi].include?(req['mode'])

    s.conn(req['conn']).push_batch(id, req['mode'], req['cmds'].map { |c| c.map { |a| arg(a) } })
  when 'subscribe', 'next'
    s = sessions[req['session']]
    return send_line(id: id, error: "no session #{req['session']}") unless s
    return send_line(id: id, error: 'library has no subscribe API') unless s.pubsub

    payload = req['op'] == 'next' ? [req['kind'], req['wait_ms']] : req['args'].map { |a| arg(a) }
    s.conn(req['conn']).push_sub(id, req['op'].to_sym, payload)
  when 'do'
    s = sessions[req['session']]
    return send_line(id: id, error: "no session #{req['session']}") unless s

    s.conn(req['conn']).push(id, req['args'].map { |a| arg(a) })
  when 'close'
    sessions.delete(req['session'])&.close
    send_line(id: id, ok: true)
  else
    send_line(id: id, error: "unknown op #{req['op']}")
  end
end

def main
  sessions = {}
  $stdin.each_line do |line|
    line = line.strip
    next if line.empty?

    req = JSON.parse(line)
    begin
      handle(req, sessions)
    rescue StandardError => e
      log("#{e.class}: #{e.message}\n#{e.backtrace&.first(5)&.join("\n")}")
      send_line(id: req['id'], error: "#{e.class}: #{e.message}")
    end
  end
end

main
