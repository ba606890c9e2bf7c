--[[
atoll: the atoll.so line of Slurm's plugstack configuration, read by
job_submit.lua (in slurmctld) and cli_filter.lua (in srun, sbatch, salloc).
Install it next to them, beside slurm.conf.

The site's settings (policy=, island_wait=, leaf_wait=, strict=) come from
this root-owned file, never from the job: anything in a job's SPANK
environment can be written by the user who submits it.

  local read_plugstack = dofile(dir .. "atoll-plugstack.lua")
  local conf = read_plugstack("/etc/slurm/slurm.conf")
  -- conf.policy, conf.island_wait, conf.leaf_wait (nil: island_wait), conf.strict

PlugStackConfig in slurm.conf names the file (default plugstack.conf next to
it); "include" lines are followed two deep, their glob in the last path
component only, and no shell ever sees a configured path.
]]

local function lines(path)
    local f = io.open(path, "r")
    if not f then
        return function() return nil end
    end
    local all = {}
    for l in f:lines() do table.insert(all, l) end
    f:close()
    local i = 0
    return function() i = i + 1; return all[i] end
end

local function quote(s)
    return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- the files a plugstack include pattern names: its directory listed (quoted,
-- so no shell expands or runs anything in it), the glob matched here
local function glob(pattern)
    local dir, base = pattern:match("^(.*)/([^/]*)$")
    if not dir then
        dir, base = ".", pattern
    end
    if dir == "" then dir = "/" end
    if dir:find("[%*%?%[]") then
        return {}
    end
    local lua = "^" .. base:gsub("[%^%$%(%)%%%.%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".") .. "$"
    local out = {}
    local p = io.popen("ls -1A -- " .. quote(dir) .. " 2>/dev/null")
    if p then
        for f in p:lines() do
            if f:match(lua) then table.insert(out, (dir == "/" and "" or dir) .. "/" .. f) end
        end
        p:close()
    end
    table.sort(out)
    return out
end

local function seconds(v)
    local x, u = tostring(v):match("^(%d+)([smhd]?)$")
    if not x then return nil end
    local mult = {[""] = 1, s = 1, m = 60, h = 3600, d = 86400}
    return tonumber(x) * mult[u]
end

return function(slurm_conf)
    local conf = {policy = "atoll", island_wait = 600, leaf_wait = nil, strict = false, found = false}
    local dir = slurm_conf:match("^(.*/)") or "./"
    local stack = dir .. "plugstack.conf"
    for l in lines(slurm_conf) do
        local v = l:match("^%s*[Pp]lug[Ss]tack[Cc]onfig%s*=%s*(%S+)")
        if v then stack = v end
    end
    local function scan(path, depth)
        for l in lines(path) do
            local pat = l:match("^%s*include%s+(%S+)")
            if pat and depth < 2 then
                for _, f in ipairs(glob(pat)) do scan(f, depth + 1) end
            elseif l:match("^%s*%a+%s+%S*atoll%.so") then
                conf.found = true
                for w in l:gmatch("%S+") do
                    local k, v = w:match("^([%w_]+)=(%S*)$")
                    if w == "strict" then conf.strict = true end
                    if k == "policy" then conf.policy = v end
                    if k == "strict" then conf.strict = (v == "yes" or v == "true" or v == "1" or v == "on") end
                    if k == "island_wait" then conf.island_wait = seconds(v) or conf.island_wait end
                    if k == "leaf_wait" then conf.leaf_wait = seconds(v) end
                end
            end
        end
    end
    scan(stack, 0)
    return conf
end
