-- wrk script for bench:mcp: the same read as a REST call or as an MCP tools/call, each request with the next key of
-- a file (one per line), so no key reaches its own rate limit. Arguments: path (unused), store id, keys file, mode
-- ('rest' or 'mcp').
local keys = {}
local store, mode
local i = 0
local body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_products","arguments":{"limit":20}}}'

init = function (args)
  store, mode = args[2], args[4]
  for line in io.lines(args[3]) do keys[#keys + 1] = line end
  math.randomseed(os.time() + #tostring({}))
  i = math.random(#keys)
end

request = function ()
  i = i % #keys + 1
  if mode == 'rest' then
    return wrk.format('GET', '/v1/products?limit=20', { ['Authorization'] = 'Bearer ' .. keys[i], ['x-store-env-id'] = store })
  end
  return wrk.format('POST', '/mcp', {
    ['Authorization'] = 'Bearer ' .. keys[i], ['x-store-env-id'] = store, ['content-type'] = 'application/json',
    ['accept'] = 'application/json, text/event-stream', ['mcp-protocol-version'] = '2025-06-18'
  }, body)
end
