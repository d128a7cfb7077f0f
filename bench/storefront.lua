-- wrk script for the storefront reads: an allowed Origin, the store header, and each request from another visitor
-- (X-Forwarded-For, with TRUST_PROXY on), so the per-IP budget of 20/s is measured as the design meets it: many
-- shoppers, not one. Arguments: path, store id, origin.
local path, store, origin
local n = 0

init = function (args)
  path, store, origin = args[1], args[2], args[3]
  math.randomseed(os.time() + #tostring({}))
  n = math.random(1, 1000000)
end

request = function ()
  n = n + 1
  local ip = '10.' .. (math.floor(n / 65536) % 256) .. '.' .. (math.floor(n / 256) % 256) .. '.' .. (n % 256)
  return wrk.format('GET', path, { ['x-store-env-id'] = store, ['Origin'] = origin, ['X-Forwarded-For'] = ip })
end
