-- wrk script: GET one path, each request with the next credential of a file (one per line), so no credential
-- reaches its own rate limit. Arguments: path, store id, credentials file.
local tokens = {}
local path, store
local i = 0

init = function (args)
  path, store = args[1], args[2]
  for line in io.lines(args[3]) do tokens[#tokens + 1] = line end
  math.randomseed(os.time() + #tostring({}))
  i = math.random(#tokens)
end

request = function ()
  i = i % #tokens + 1
  return wrk.format('GET', path, { ['Authorization'] = 'Bearer ' .. tokens[i], ['x-store-env-id'] = store })
end
