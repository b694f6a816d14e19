# Shared by the redis-rb repros: ruby -E UTF-8 FILE.rb HOST:PORT (see README.md).
require 'redis'
require 'timeout'

HOST, PORT = (ARGV[0] || '').split(':')
abort('usage: ruby FILE.rb HOST:PORT') unless PORT
$stdout.sync = true

def client
  Redis.new(host: HOST, port: PORT.to_i, reconnect_attempts: 0, timeout: 3600)
end

# step is one Redis#call with a 2 s timer; prints DECODED, THROWN or HANG.
def step(label, r, *args)
  v = Timeout.timeout(2) { r.call(*args) }
  puts "#{label} DECODED: #{v.inspect}"
  v
rescue Timeout::Error
  puts "#{label} HANG: no result after 2s"
  exit 0
rescue StandardError => e
  puts "#{label} THROWN: #{e.class}: #{e.message.inspect}"
  nil
end
