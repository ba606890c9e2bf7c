--[[
atoll: cli_filter.lua for srun, sbatch and salloc (CliFilterPlugins=lua; the
file lives next to slurm.conf).

When a job asks for an island (--fabric-island, from the atoll SPANK plugin),
this runs atoll's placement engine on the live state before the job is
submitted: `atoll-place place --slurm` with the idle nodes from sinfo. Its
answer becomes the job's --constraint (a matching-OR over the islands that can
hold the job, atoll's choice first: Slurm starts a job in the first option that
has room, so atoll decides the island and Slurm's scheduler keeps the timing)
and, for a preferred leaf, --switches=1@WAIT. job_submit.lua then sees the
islands already named and leaves the job alone; without this filter it orders
the islands without live state.

For --fabric-island=auto with a --time, the wait for the island is the step
model's: squeue's running jobs (time left) and pending jobs (node counts) say
when an island would have the job's nodes, against what spanning now costs
(atoll-place(1), --running and --pending) for the jobs and uplink load the
plugstack line describes (comm_share=, collective=, uplink_load=; atoll(8));
--fabric-explain logs what was weighed. Without squeue, the island wait alone.

A request no island can ever hold is refused here, naming the largest island.
If sinfo or atoll-place fail or take longer than TIMEOUT seconds, the job goes
on as submitted (job_submit.lua still constrains it) with one warning. Job
steps inside an allocation are left alone.

The policy and the waits come from the atoll.so line of the plugstack
configuration that slurm.conf names: atoll-place reads it (--slurm-conf), with
the plugin's own parser. FABRIC is the fabric JSON that the plugin's
fabric.view was made from.
]]

local ATOLL_PLACE = "@bindir@/atoll-place"
local FABRIC = "@atollconfdir@/fabric.json"
local TIMEOUT = 3        -- seconds, for sinfo, each squeue and atoll-place each

local function quote(s)
    return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- a command's stdout, or nil and a reason; never longer than TIMEOUT
local function run(cmd)
    local p = io.popen("timeout " .. TIMEOUT .. " " .. cmd .. " 2>&1; echo \"rc=$?\"")
    if not p then
        return nil, "cannot run " .. cmd
    end
    local out = p:read("*a") or ""
    p:close()
    local body, rc = out:match("^(.-)rc=(%d+)%s*$")
    if rc ~= "0" then
        if rc == "124" then
            return nil, cmd:match("^(%S+)") .. " took longer than " .. TIMEOUT .. " s"
        end
        return nil, (body or out):gsub("%s+$", "")
    end
    return body
end

local function warn(msg)
    slurm.log_info("atoll: warning: %s; the job is submitted without live placement (job_submit.lua still "
                   .. "constrains it to an island)", msg)
end

-- a count the user gave (Slurm's NO_VAL and "unset" are none)
local function count(v)
    local x = tonumber(tostring(v or ""):match("^(%d+)"))
    if x and x > 0 and x < 2147483647 then
        return x
    end
    return nil
end

-- Slurm takes one set of brackets in a constraint (build_feature_list():
-- "more than one set of brackets" is ESLURM_INVALID_FEATURE, the job refused
-- as "Invalid feature specification"): atoll's islands are one
local function has_brackets(features)
    return features ~= nil and features ~= "unset" and tostring(features):find("[", 1, true) ~= nil
end

-- The nodes the job needs at least: -N, --gpus over --gpus-per-node, --ntasks
-- over --ntasks-per-node, else --ntasks times --cpus-per-task over the most CPUs a node of the
-- partition has (sinfo -N %c: one line a node), the fewest nodes Slurm could
-- give it. (cli_filter's options are named as the long options are.)
local function node_count(options, part)
    local n = count(options.nodes) or 1
    -- --gpus over --gpus-per-node
    local function gcount(v)  -- "20" or "a100:20"
        return count(tostring(v or ""):match("(%d+)$"))
    end
    local gpus, gpn = gcount(options.gpus), gcount(options["gpus-per-node"])
    if gpus and gpn then
        n = math.max(n, math.ceil(gpus / gpn))
    end
    local tasks = count(options.ntasks)
    if not tasks then
        return n
    end
    local per = count(options["ntasks-per-node"])
    if per then
        return math.max(n, math.ceil(tasks / per))
    end
    local cpus = run("sinfo -h -N -o %c" .. (part and (" -p " .. quote(part)) or ""))
    local most = 0
    for c in (cpus or ""):gmatch("%d+") do
        most = math.max(most, tonumber(c))
    end
    if most > 0 then
        n = math.max(n, math.ceil(tasks * (count(options["cpus-per-task"]) or 1) / most))
    end
    return n
end

function slurm_cli_setup_defaults(options, early_pass)
    return slurm.SUCCESS
end

function slurm_cli_post_submit(offset, jobid, stepid)
    return slurm.SUCCESS
end

function slurm_cli_pre_submit(options, offset)
    local spank = options.spank and options.spank["atoll"]
    local req = spank and spank["fabric-island"]
    if req == nil or req == "unset" or req == "none" then
        return slurm.SUCCESS
    end
    if options.type == "srun" and os.getenv("SLURM_JOB_ID") then
        return slurm.SUCCESS  -- a step inside an allocation: placed already
    end
    local explain = spank["fabric-explain"] ~= nil and spank["fabric-explain"] ~= "unset"
    -- the job's partition: its idle nodes, and (topology.yaml) its topology
    local part = options.partition
    part = (part ~= nil and part ~= "" and part ~= "unset") and tostring(part):match("^([^,]+)") or nil
    local n = node_count(options, part)
    local idle, err = run("sinfo -h -t idle -o %N" .. (part and (" -p " .. quote(part)) or ""))
    if not idle then
        warn(err)
        return slurm.SUCCESS
    end
    local free = idle:gsub("%s+", ","):gsub("^,+", ""):gsub(",+$", "")
    local cmd = string.format("%s place %s --slurm --nodes %d --island %s --slurm-conf %s",
                              quote(ATOLL_PLACE), quote(FABRIC), n, quote(req),
                              quote(os.getenv("SLURM_CONF") or "/etc/slurm/slurm.conf"))
    if part then
        cmd = cmd .. " --partition " .. quote(part)
    end
    if free ~= "" then
        cmd = cmd .. " --free " .. quote(free)
    else
        cmd = cmd .. " --free ''"
    end
    -- auto with a time limit: the island wait is the step model's, from
    -- the running jobs' time left and the queue ahead (squeue); without
    -- squeue, the wait alone
    local tl = options.time_limit or options.time
    -- no --time: Slurm gives its NO_VAL minutes (4294967294) as a time,
    -- "2982616-04:14:00", which is no limit (INFINITE is "UNLIMITED")
    local days = tl ~= nil and tonumber(tostring(tl):match("^(%d+)%-") or tostring(tl):match("^(%d+)$"))
    if days and (tostring(tl):find("-", 1, true) and days >= 2982616 or days >= 4294967294) then
        tl = nil
    end
    -- a limit of zero is no limit (sbatch(1) --time), not a 0 s job
    if tl ~= nil and tostring(tl):match("^[0:%-]+$") then
        tl = nil
    end
    local modelled = false
    local temps = {}
    local function squeue_file(flag, args)
        local text = run("squeue -h " .. args)
        if not text then
            return false
        end
        local name = os.tmpname()
        temps[#temps + 1] = name
        local f = io.open(name, "w")
        if not f then
            return false
        end
        f:write(text)
        f:close()
        cmd = cmd .. " " .. flag .. " " .. quote(name)
        return true
    end
    if req == "auto" and tl ~= nil and tl ~= "" and tl ~= "unset" and tostring(tl):match("^[%d:%-]+$") then
        modelled = true
        cmd = cmd .. " --time-limit " .. quote(tl)
        if squeue_file("--running", "-t R -o " .. quote("%N %L")) then
            -- the jobs queued in the job's partition take the first hosts
            -- to free up
            -- (-r: each pending task of a job array on its own line, as it
            -- takes its own nodes; without it squeue lists the array once)
            squeue_file("--pending", "-r -t PD" .. (part and (" -p " .. quote(part)) or "") ..
                        " -O " .. quote("NumNodes:|,Reason:|,TimeLimit:|"))
        end
    end
    if explain and modelled then
        cmd = cmd .. " --explain"  -- a decision= line: what the step model weighed
    end
    local out
    out, err = run(cmd)
    for _, name in ipairs(temps) do
        os.remove(name)
    end
    if not out then
        warn(err)
        return slurm.SUCCESS
    end
    local constraint, switches, nfree, segment, decision
    for line in out:gmatch("[^\n]+") do
        local k, v = line:match("^(%a+)=(.*)$")
        if k == "refuse" then
            slurm.log_error("atoll: %s", v)
            return slurm.ERROR
        elseif k == "constraint" then
            constraint = v
        elseif k == "switches" then
            switches = v
        elseif k == "free" then
            nfree = v
        elseif k == "segment" then
            segment = v
        elseif k == "decision" then
            decision = v
        end
    end
    local own_islands = nil  -- the user's own bracketed constraint, left to job_submit.lua
    if constraint then
        local have = options.constraint
        if has_brackets(have) then
            -- Slurm takes one set of brackets, and atoll's islands are one:
            -- job_submit.lua, which knows every island of the table, keeps
            -- brackets naming atoll's islands (a constraint --fabric-explain
            -- printed) as the island constraint, and refuses others for a
            -- required level or says it adds none (helper 45: judged here
            -- on the live answer's 64, an island pin was refused)
            own_islands = have
            constraint = nil
        elseif have ~= nil and have ~= "" and have ~= "unset" then
            constraint = have .. "&" .. constraint
        end
        if constraint then
            options.constraint = constraint
        end
    end
    local own_segment = options.segment
    local consolidate = false
    if segment and (own_segment == nil or own_segment == "" or own_segment == "unset") then
        options.segment = segment  -- topology/block: never over the user's own --segment
        -- more than one segment: all in one aggregated block with
        -- --consolidate-segments (Slurm 25.11 and later; older releases have
        -- no such option and read it as nil)
        if n > tonumber(segment) and options["consolidate-segments"] == "unset" then
            options["consolidate-segments"] = "set"
            consolidate = true
        end
    end
    local own = options.switches
    local own_set = not (own == nil or own == "" or own == "unset")
    if switches and not own_set then
        options.switches = switches  -- never over the user's own --switches
    end
    -- auto, judged by the step model not worth a wait: --switches=1@0 tells
    -- job_submit.lua so (without it the table's wait would apply), and asks
    -- Slurm to wait for nothing
    local no_wait = false
    if modelled and not switches and not constraint and not own_islands and not segment and not own_set then
        options.switches = "1@0"
        no_wait = true
    end
    if explain then
        slurm.log_info("atoll: %d node%s, --fabric-island=%s, %s of the fabric's nodes idle: %s%s",
                       n, n == 1 and "" or "s", req, tostring(nfree),
                       constraint and ("constraint " .. constraint) or
                           own_islands and ("the job's own bracketed constraint " .. own_islands .. " (job_submit.lua decides)") or
                           (no_wait and "no constraint and no wait (the step model: an island is not worth waiting for)"
                            or "no constraint (any nodes)"),
                       (switches and (", switches " .. switches) or "") ..
                       (segment and (", segment " .. segment) or "") ..
                       (consolidate and ", consolidate-segments" or ""))
        if decision then
            slurm.log_info("atoll: auto with --time: %s", decision)
        end
    end
    return slurm.SUCCESS
end

return slurm.SUCCESS
