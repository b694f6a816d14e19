package clients

func init() {
	contracts["redis-rb"] = newContract("redis-rb", []string{
		"RESP2 only: the reader knows - + : $ * and raises Redis::ProtocolError for any other type byte (redis 4.8.0 lib/redis/connection/ruby.rb format_reply)",
		"blob and simple strings are String (blob strings tagged with Encoding.default_external, simple strings binary), integers Integer, nils nil, arrays Array; " +
			"a top-level error is raised as Redis::CommandError, an error element is returned as one (lib/redis/client.rb call, connection/ruby.rb format_error_reply)",
		"simple strings and errors are String#strip'ed (connection/ruby.rb format_status_reply, format_error_reply: line.strip): surrounding spaces are lost",
	}, nil)
}
