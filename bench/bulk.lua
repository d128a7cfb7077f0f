-- wrk script for bench:bulk: PUT /v1/products with 250-item batches, each request with the next key of a file, so
-- no key reaches its own rate limit. Arguments: path (unused), store id, keys file, mode: 'changed' (ids from a pool
-- of 5000 and a new title each time, so batches mix inserts and updates), 'same' (one fixed batch re-sent), 'keyed'
-- ('changed' with a new Idempotency-Key on each request: the cost of claiming and keeping the answer) or 'replayed'
-- (one fixed batch under 64 keys per thread, each reused every 64 requests: after the first round every request is
-- answered from the kept response).
-- Like the raw upsert it is read against, batches in flight together draw different blocks of the pool: the two
-- threads (wrk.ts runs -t2) take alternate blocks, each thread's connections consecutive ones.
local keys = {}
local store, mode, fixed
local i, n, run = 0, 0, 0
local BATCH, POOL = 250, 5000
local threads = 0

-- Runs in wrk's main state: numbers each thread (its global `tid`).
setup = function (thread)
  thread:set('tid', threads)
  threads = threads + 1
end

local function batch (tag, base)
  local items = {}
  for k = 0, BATCH - 1 do
    local id = 'sku-' .. ((base * BATCH + k) % POOL)
    local excluded = k % 17 == 0
    items[#items + 1] = string.format(
      '{"platformProductId":"%s","title":"Product %s v%s","url":"https://shop.example/p/%s","imageUrl":"https://cdn.shop.example/%s.jpg","excludedFromReviewRequests":%s,"exclusionReason":%s}',
      id, id, tag, id, id, tostring(excluded), excluded and '"sample"' or 'null')
  end
  return '{"products":[' .. table.concat(items, ',') .. ']}'
end

init = function (args)
  store, mode = args[2], args[4]
  for line in io.lines(args[3]) do keys[#keys + 1] = line end
  math.randomseed(os.time() + tid)
  run = os.time()
  i = math.random(#keys)
  n = tid
  fixed = batch('fixed', 0)
end

request = function ()
  i = i % #keys + 1
  n = n + 2
  local body = (mode == 'same' or mode == 'replayed') and fixed or batch(tostring(n), n)
  local headers = { ['Authorization'] = 'Bearer ' .. keys[i], ['x-store-env-id'] = store, ['content-type'] = 'application/json' }
  if mode == 'keyed' then headers['Idempotency-Key'] = string.format('bench-%d-%d-%d', run, tid, n) end
  if mode == 'replayed' then headers['Idempotency-Key'] = string.format('bench-replayed-%d-%d-%d', run, tid, n % 128) end
  return wrk.format('PUT', '/v1/products', headers, body)
end
