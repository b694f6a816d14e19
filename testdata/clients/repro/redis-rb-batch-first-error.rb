# repro: redis-rb 4.8.0's batch API raises the first error of a batch instead of giving each command its reply: pipelined raises the first Redis::CommandError among the replies and sets no future (lib/redis/client.rb call_pipelined), so the commands that succeeded have no value; multi raises the queue-time error of an unknown command where the server answers EXECABORT (the same code), and raises the first error element of EXEC's array (lib/redis/pipeline.rb Multi#finish, Future#_set), so the other elements are lost.
# finds: errors/error between two pipelined replies [redis-rb-4.8.0/pipeline/resp2]
# finds: errors/EXEC array with an error element from INCR on a string [redis-rb-4.8.0/pipeline/resp2]
# finds: errors/EXECABORT error after an error at queue time [redis-rb-4.8.0/pipeline/resp2]
# finds: faults/error inside an EXEC array [redis-rb-4.8.0/pipeline/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-rb-4.8.0/pipeline/resp2]
# finds: transactions/EXEC array with a WRONGTYPE error between two replies [redis-rb-4.8.0/pipeline/resp2]
# run: ruby
# expect: (?s)pipelined SET, INCR on it, GET RAISED: Redis::CommandError: "ERR value is not an integer or out of range"\nfuture 0: FutureNotReady\n.*multi GET, NOPE RAISED: Redis::CommandError: "ERR unknown command 'NOPE'.*multi SET, INCR on it, GET RAISED: Redis::CommandError: "ERR value is not an integer or out of range"\nfuture 0: "OK"\nfuture 1: Redis::CommandError\nfuture 2: FutureNotReady
require_relative 'lib'

# batch runs cmds through pipelined or multi; prints what it returned or
# raised, then what each command's future gives.
def batch(label, r, mode, cmds)
  futures = []
  begin
    v = r.send(mode) { |b| cmds.each { |a| futures << b.call(*a) } }
    puts "#{label} RETURNED: #{v.inspect}"
  rescue StandardError => e
    puts "#{label} RAISED: #{e.class}: #{e.message.inspect}"
  end
  futures.each_with_index do |f, i|
    puts "future #{i}: #{f.value.inspect}"
  rescue Redis::FutureNotReady
    puts "future #{i}: FutureNotReady"
  rescue Redis::CommandError
    puts "future #{i}: Redis::CommandError"
  end
end

r = client
r.call('DEL', 'repro:rb:batch')
batch('pipelined SET, INCR on it, GET', r, :pipelined, [%w[SET repro:rb:batch text], %w[INCR repro:rb:batch], %w[GET repro:rb:batch]])
batch('multi GET, NOPE', r, :multi, [%w[GET repro:rb:batch], %w[NOPE repro:rb:batch]])
batch('multi SET, INCR on it, GET', r, :multi, [%w[SET repro:rb:batch text], %w[INCR repro:rb:batch], %w[GET repro:rb:batch]])
r.call('DEL', 'repro:rb:batch')
