-- wrk's script for the lab's http workload (WrkBenchmark) and bench/layers.sh: wrk ... -s wrk.lua URL -- DEPTH PAUSE
-- DEPTH above 1: that many GETs per write (wrk's pipelining example). PAUSE in ms above 0: wrk waits that long on
-- average before each write of a connection (whole ms, wrk's timer's unit: the fraction by chance). A request or a
-- delay function only where needed: without them wrk sends a static request without calling into Lua at all.
init = function(args)
  local depth = tonumber(args[1]) or 1
  if depth > 1 then
    local r = {}
    for i = 1, depth do r[i] = wrk.format(nil, "/") end
    local batch = table.concat(r)
    request = function() return batch end
  end
  local pause = tonumber(args[2]) or 0
  if pause > 0 then
    local whole = math.floor(pause)
    local part = pause - whole
    math.randomseed(os.time())
    delay = function()
      if math.random() < part then return whole + 1 end
      return whole
    end
  end
end
