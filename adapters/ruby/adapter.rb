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
# Run with ruby -E UTF-8 (respcheck does): the gem tags blob strings with
# Encoding.default_external, which otherwise depends on the locale.
require 'base64'
require 'json'
require 'redis'

NAME = "redis-rb-#{Redis::VERSION}"
BATCH = "#{NAME}/pipeline"
BATCH_API = 'Redis#pipelined { |pipe| pipe.call(*args) ... }, Redis#multi { |tx| tx.call(*args) ... }; other steps Redis#call(*args)'

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
  line = JSON.generate(obj)
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

# Conn is one pinned case connection: one Redis client, one thread.
class Conn
  def initialize(host, port)
    @host = host
    @port = port
    @q = Queue.new
    @thread = Thread.new { loop_calls }
  end

  def push(id, args)
    @q << [id, args]
  end

  def push_batch(id, mode, cmds)
    @q << [id, cmds, mode]
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
    while (item = @q.pop)
      id, args, mode = item
      if mode
        send_line(id: id, **batch(mode, args))
      else
        send_line(id: id, value: call(args))
      end
    end
    @client&.close
  rescue StandardError => e
    log("connection thread: #{e.class}: #{e.message}")
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
  attr_reader :batch

  def initialize(addr, batch)
    @host, port = addr.split(/:(?=[^:]*\z)/)
    @port = port.to_i
    @batch = batch
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
                                    source: source }])
  when 'open'
    return send_line(id: id, error: "unknown library #{req['lib']}") unless [NAME, BATCH].include?(req['lib'])
    return send_line(id: id, error: 'redis-rb 4.x speaks RESP2 only') if req['proto'] != 2

    sessions[req['session']] = Session.new(req['addr'], req['lib'] == BATCH)
    send_line(id: id, ok: true)
  when 'batch'
    s = sessions[req['session']]
    return send_line(id: id, error: "no session #{req['session']}") unless s
    return send_line(id: id, error: 'library has no batch op') unless s.batch
    return send_line(id: id, error: "unknown batch mode #{req['mode']}") unless %w[pipeline multi].include?(req['mode'])

    s.conn(req['conn']).push_batch(id, req['mode'], req['cmds'].map { |c| c.map { |a| arg(a) } })
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
