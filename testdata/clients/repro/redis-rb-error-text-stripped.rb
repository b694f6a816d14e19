# repro: redis-rb 4.8.0 strips the text of error replies (lib/redis/connection/ruby.rb format_error_reply: CommandError.new(line.strip)): the trailing space of Redis's "unknown command" error is lost, and "-ERR \r\n" (an empty text after the code) becomes "ERR".
# finds: errors/simple error from an unknown command with arguments [redis-rb-4.8.0/resp2]
# finds: errors/simple errors with an empty text and with an ERR code and no text [redis-rb-4.8.0/resp2]
# finds: transactions/EXECABORT error after an unknown command at queue time [redis-rb-4.8.0/resp2]
# run: ruby
# expect: (?s)NOSUCHCMD THROWN: Redis::CommandError: "ERR unknown command 'NOSUCHCMD', with args beginning with: 'a' 'b'"\n.*error_reply\(''\) THROWN: Redis::CommandError: "ERR"\n
require_relative 'lib'

r = client
puts "wire: -ERR unknown command 'NOSUCHCMD', with args beginning with: 'a' 'b' \\r\\n"
step('NOSUCHCMD', r, 'NOSUCHCMD', 'a', 'b')
puts 'wire: -ERR \\r\\n'
step("error_reply('')", r, 'EVAL', "return redis.error_reply('')", '0')
