--[[
atoll: job_submit.lua for slurmctld (JobSubmitPlugins=lua).

The atoll SPANK plugin records a job's island request on the submit side
(--fabric-island, or the admin's default_island) as ATOLL_ISLAND in the job's
SPANK environment. Here, where the node count is known, the request becomes
something Slurm's own scheduler enforces, so Slurm stays in charge of timing
(queueing, priorities, backfill) while atoll decides the islands:

  LEVEL:required   a matching-OR constraint over the islands of LEVEL that can
                   ever hold the job, e.g. --constraint="[grp-leaf03|grp-leaf01]":
                   the job starts in whichever of them has room first, never
                   across two. The islands are node features written by
                   `atoll-topo slurm --format features`.
  LEVEL:preferred, auto
                   --switches=K@WAIT (K = 1 for a leaf, else the fewest leaves
                   that can hold the job): one leaf switch of atoll's
                   topology.conf, waited for up to island_wait seconds (raise
                   max_switch_wait in SchedulerParameters above 300 s), then
                   the job widens one level: a matching-OR constraint over the
                   islands of the next level up (a group, else a pod) keeps it
                   there. auto is the smallest level that can hold the job.

The plugin's policy= (ATOLL_POLICY) orders the islands of a constraint:
atoll (default) healthy islands first, then the smallest that holds the job;
first-fit by name; random shuffled; slurm-tree sets no constraint and asks
Slurm's topology/tree for --switches=K@WAIT instead, required or not.

A request no island can ever hold is refused at submit, naming the largest
island. Jobs without ATOLL_ISLAND are left alone. The islands come from
atoll-islands.conf next to this script (`atoll-topo slurm --format islands`).
]]

local ISLANDS_FILE = "atoll-islands.conf"

local function script_dir()
    local src = debug.getinfo(1, "S").source
    return src:match("^@(.*/)") or "./"
end

local function load_islands()
    local path = script_dir() .. ISLANDS_FILE
    local f = io.open(path, "r")
    if not f then
        return nil, "cannot open " .. path
    end
    local islands = {}
    local lineno = 0
    for line in f:lines() do
        lineno = lineno + 1
        if not line:match("^%s*#") and line:match("%S") then
            local level, name, cap, healthy = line:match("^(%S+)%s+(%S+)%s+(%d+)%s+([01])%s*$")
            if not level then
                f:close()
                return nil, string.format("%s:%d: found \"%s\", expected LEVEL NAME CAPACITY HEALTHY", path, lineno, line)
            end
            table.insert(islands, {level = level, name = name, cap = tonumber(cap), healthy = healthy == "1"})
        end
    end
    f:close()
    return islands
end

local function spank_env(job_desc, name)
    if job_desc.spank_job_env == nil then
        return nil
    end
    for _, kv in pairs(job_desc.spank_job_env) do
        local k, v = tostring(kv):match("^([^=]+)=(.*)$")
        if k == name then
            return v
        end
    end
    return nil
end

local function largest(islands, level)
    local m = 0
    for _, is in ipairs(islands) do
        if is.level == level and is.cap > m then
            m = is.cap
        end
    end
    return m
end

-- fewest leaf islands whose capacities hold n
local function min_leaves(islands, n)
    local caps = {}
    for _, is in ipairs(islands) do
        if is.level == "leaf" then
            table.insert(caps, is.cap)
        end
    end
    table.sort(caps, function(a, b) return a > b end)
    local sum, k = 0, 0
    for _, c in ipairs(caps) do
        if sum >= n then
            break
        end
        sum = sum + c
        k = k + 1
    end
    return k
end

function slurm_job_submit(job_desc, part_list, submit_uid)
    local req = spank_env(job_desc, "ATOLL_ISLAND")
    if req == nil or req == "none" then
        return slurm.SUCCESS
    end
    local wait = tonumber(spank_env(job_desc, "ATOLL_ISLAND_WAIT") or "600") or 600
    local policy = spank_env(job_desc, "ATOLL_POLICY") or "atoll"
    local explain = spank_env(job_desc, "ATOLL_EXPLAIN") == "1"
    local n = job_desc.min_nodes
    if n == nil or n == slurm.NO_VAL or n == 0 then
        n = 1
    end
    local islands, err = load_islands()
    if not islands then
        slurm.log_info("atoll: %s; job left as submitted", err)
        slurm.log_user("atoll: warning: %s; the job runs without island placement", err)
        return slurm.SUCCESS
    end
    local level, fit = req:match("^(%a+):(%a+)$")
    if req == "auto" then
        fit = "preferred"
        for _, l in ipairs({"leaf", "group", "pod"}) do
            if largest(islands, l) >= n then
                level = l
                break
            end
        end
        if level == nil then
            return slurm.SUCCESS  -- larger than any pod: the whole fabric
        end
    end
    if level == nil then
        slurm.log_user("atoll: bad island request \"%s\"", req)
        return slurm.ERROR
    end
    -- the islands of a level that can ever hold the job, in the policy's order
    local function candidates(lv)
        local cands = {}
        for _, is in ipairs(islands) do
            if is.level == lv and is.cap >= n then
                table.insert(cands, is)
            end
        end
        if policy == "first-fit" then
            table.sort(cands, function(a, b) return a.name < b.name end)
        elseif policy == "random" then
            for i = #cands, 2, -1 do
                local j = math.random(i)
                cands[i], cands[j] = cands[j], cands[i]
            end
        else
            -- healthy islands first, then the smallest that holds the job (best fit)
            table.sort(cands, function(a, b)
                if a.healthy ~= b.healthy then return a.healthy end
                if a.cap ~= b.cap then return a.cap < b.cap end
                return a.name < b.name
            end)
        end
        return cands
    end
    local function constrain(cands)
        local names = {}
        for _, is in ipairs(cands) do
            table.insert(names, is.name)
        end
        local c = "[" .. table.concat(names, "|") .. "]"
        if job_desc.features ~= nil and job_desc.features ~= "" then
            c = job_desc.features .. "&" .. c
        end
        job_desc.features = c
        return c
    end
    local cands = candidates(level)
    if #cands == 0 then
        slurm.log_user("atoll: --fabric-island=%s: no %s can hold %d nodes; the largest %s holds %d",
                       req, level, n, level, largest(islands, level))
        return slurm.ERROR
    end
    if fit == "required" and policy ~= "slurm-tree" then
        local c = constrain(cands)
        if explain then
            slurm.log_user("atoll: %d nodes in one %s: constraint %s", n, level, c)
        end
        return slurm.SUCCESS
    end
    -- preferred: Slurm's --switches waits for the level, and a constraint on
    -- the next level up with other islands keeps the job from widening further
    local k = 1
    if level ~= "leaf" then
        k = min_leaves(islands, n)
    end
    job_desc.req_switch = k
    job_desc.wait4switch = wait
    local wider = "anywhere"
    if policy ~= "slurm-tree" then
        local names = {}
        for _, is in ipairs(cands) do names[is.name] = true end
        local order = {"leaf", "group", "pod"}
        local start = 0
        for i, l in ipairs(order) do if l == level then start = i end end
        for i = start + 1, #order do
            local up = candidates(order[i])
            local same = #up > 0
            for _, is in ipairs(up) do same = same and names[is.name] == true end
            if #up > 0 and not same then
                wider = "within one " .. order[i] .. ": " .. constrain(up)
                break
            end
        end
    end
    if explain then
        slurm.log_user("atoll: %d nodes, %s %s: at most %d leaf switch(es) for up to %d s, then %s",
                       n, level, fit, k, wait, wider)
    end
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end

slurm.log_info("atoll: job_submit.lua loaded")
return slurm.SUCCESS
