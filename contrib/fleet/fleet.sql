-- fpm-cpu fleet tables and the questions an operator asks first.
-- Loaded by fpm-fleet (psql -f fleet.sql), which then COPYs each host's
-- `fpm-analyze --format csv` rows into fpm_pool.  Columns: fpm-analyze(1),
-- CSV COLUMNS; schema 8 (schema 7 had no source, requests, requests_per_s,
-- measured_* and access_* columns; schema 6 had no sched_group_* and memory_no_advice columns; schema 5 had no memory_per_worker_source and
-- memory_*_fraction, and advised each pool beside the others at their
-- pm.max_children; schema 4 had no memory_* columns; schema 3 had no
-- cpus and cpu_source; schema 2 had
-- no knee and cpu_ms_per_request, and sized by TYPICAL with ceiling = fill x
-- headroom; schema 1 had no joint_*, activity_*, contended and primed
-- columns, its overhead was the dominant pool's fit and its readings counted
-- those taken while the CPU was full).
-- Safe to run again: it creates what is missing, and an older table gains
-- the new columns.

SET client_min_messages = warning;

CREATE TABLE IF NOT EXISTS fpm_pool (
    loaded_at                    timestamptz NOT NULL DEFAULT now(),
    schema                       integer NOT NULL,
    hostname                     text NOT NULL,
    host_millicores              bigint,
    cpus                         bigint,
    cpu_source                   text,
    sched_group_autogroup        text,
    sched_group_cpu_weight       bigint,
    sched_group_cpu_weight_kind  text,
    sched_group_cpu_controller   boolean,
    rounds                       bigint,
    first_round_at               timestamptz,
    last_round_at                timestamptz,
    steal_pairs                  bigint,
    steal_p10_pct                numeric,
    steal_p50_pct                numeric,
    steal_p90_pct                numeric,
    steal_max_pct                numeric,
    throttled_pairs              bigint,
    throttled_p10_pct            numeric,
    throttled_p50_pct            numeric,
    throttled_p90_pct            numeric,
    throttled_max_pct            numeric,
    throttled_seconds            numeric,
    pressure_pairs               bigint,
    pressure_p10_pct             numeric,
    pressure_p50_pct             numeric,
    pressure_p90_pct             numeric,
    pressure_max_pct             numeric,
    php_accounted_pairs          bigint,
    php_accounted_p10_pct        numeric,
    php_accounted_p50_pct        numeric,
    php_accounted_p90_pct        numeric,
    php_accounted_max_pct        numeric,
    steal_probe_probes           bigint,
    steal_probe_pct              numeric,
    steal_probe_naive_pct        numeric,
    inconsistent_pairs           bigint,
    joint_n                      double precision,
    joint_base                   double precision,
    joint_resid_sd               double precision,
    joint_points                 bigint,
    joint_inconsistent_pairs     bigint,
    joint_common_slope           double precision,
    joint_common_se              double precision,
    joint_common_sd_x            double precision,
    joint_common_believed        boolean,
    needed_now_millicores        bigint,
    needed_at_ceiling_millicores bigint,
    memory_total_bytes           bigint,
    memory_budget_bytes          bigint,
    memory_other_max_bytes       bigint,
    memory_php_max_bytes         bigint,
    memory_needed_now_bytes      bigint,
    memory_needed_at_advice_bytes bigint,
    memory_needs_fraction        numeric,
    memory_room_fraction         numeric,
    pool                         text NOT NULL,
    readings                     bigint,
    typical_pct                  integer,
    p90_pct                      integer,
    shape                        text,
    php_millicores               bigint,
    busy_pct                     numeric,
    busy_millicores              bigint,
    cpu_ms_per_request           numeric,
    fit_n                        double precision,
    fit_slope                    double precision,
    fit_intercept                double precision,
    fit_sd_x                     double precision,
    joint_slope                  double precision,
    joint_se                     double precision,
    joint_partial_sd             double precision,
    joint_believed               boolean,
    overhead_source              text,
    recovered_pct                numeric,
    overhead                     double precision,
    host_millicores_per_worker   bigint,
    knee                         numeric,
    fill_workers                 bigint,
    ceiling                      bigint,
    max_children                 bigint,
    "limit"                      text,
    memory_readings              bigint,
    memory_per_worker_bytes      bigint,
    memory_per_worker_source     text,
    memory_max_bytes             bigint,
    memory_mem_ceiling           bigint,
    memory_advice                bigint,
    memory_binds                 text,
    memory_no_advice             text,
    activity_cores_mean          double precision,
    activity_cores_max           double precision,
    activity_active_max          bigint,
    activity_full_rounds         bigint,
    activity_maxed_rounds        bigint,
    activity_queue_max           bigint,
    contended_readings           bigint,
    measured_under_contention    boolean,
    unanswered_full_queue_max    bigint,
    starved_rounds               bigint,
    starved_by_steal_rounds      bigint,
    throttled_rounds             bigint,
    unanswered_full_rounds       bigint,
    error_rounds                 bigint,
    filtered_no_request          bigint,
    filtered_running             bigint,
    filtered_repeat              bigint,
    filtered_own                 bigint,
    filtered_short               bigint,
    filtered_invalid             bigint,
    filtered_primed              bigint,
    predicted_at_now_workers     bigint,
    predicted_at_now_p50_ms      bigint,
    predicted_at_now_p95_ms      bigint,
    predicted_at_advice_workers  bigint,
    predicted_at_advice_p50_ms   bigint,
    predicted_at_advice_p95_ms   bigint,
    source                       text,
    requests                     bigint,
    requests_per_s               numeric,
    measured_p50_ms              bigint,
    measured_p95_ms              bigint,
    access_lines                 bigint,
    access_unparsable            bigint,
    access_other_pool            bigint,
    access_rounds_without_access bigint,
    access_format                text,
    PRIMARY KEY (hostname, pool)
);

-- an older table: the columns added since, and its schema check widened
ALTER TABLE fpm_pool DROP CONSTRAINT IF EXISTS fpm_pool_schema_check;
ALTER TABLE fpm_pool ADD CONSTRAINT fpm_pool_schema_check CHECK (schema IN (1, 2, 3, 4, 5, 6, 7, 8));
ALTER TABLE fpm_pool ADD COLUMN IF NOT EXISTS joint_n double precision,
    ADD COLUMN IF NOT EXISTS cpus bigint,
    ADD COLUMN IF NOT EXISTS cpu_source text,
    ADD COLUMN IF NOT EXISTS sched_group_autogroup text,
    ADD COLUMN IF NOT EXISTS sched_group_cpu_weight bigint,
    ADD COLUMN IF NOT EXISTS sched_group_cpu_weight_kind text,
    ADD COLUMN IF NOT EXISTS sched_group_cpu_controller boolean,
    ADD COLUMN IF NOT EXISTS memory_total_bytes bigint,
    ADD COLUMN IF NOT EXISTS memory_budget_bytes bigint,
    ADD COLUMN IF NOT EXISTS memory_other_max_bytes bigint,
    ADD COLUMN IF NOT EXISTS memory_php_max_bytes bigint,
    ADD COLUMN IF NOT EXISTS memory_needed_now_bytes bigint,
    ADD COLUMN IF NOT EXISTS memory_needed_at_advice_bytes bigint,
    ADD COLUMN IF NOT EXISTS memory_readings bigint,
    ADD COLUMN IF NOT EXISTS memory_per_worker_bytes bigint,
    ADD COLUMN IF NOT EXISTS memory_max_bytes bigint,
    ADD COLUMN IF NOT EXISTS memory_mem_ceiling bigint,
    ADD COLUMN IF NOT EXISTS memory_advice bigint,
    ADD COLUMN IF NOT EXISTS memory_binds text,
    ADD COLUMN IF NOT EXISTS memory_no_advice text,
    ADD COLUMN IF NOT EXISTS memory_per_worker_source text,
    ADD COLUMN IF NOT EXISTS memory_needs_fraction numeric,
    ADD COLUMN IF NOT EXISTS memory_room_fraction numeric,
    ADD COLUMN IF NOT EXISTS predicted_at_now_workers bigint,
    ADD COLUMN IF NOT EXISTS predicted_at_now_p50_ms bigint,
    ADD COLUMN IF NOT EXISTS predicted_at_now_p95_ms bigint,
    ADD COLUMN IF NOT EXISTS predicted_at_advice_workers bigint,
    ADD COLUMN IF NOT EXISTS predicted_at_advice_p50_ms bigint,
    ADD COLUMN IF NOT EXISTS predicted_at_advice_p95_ms bigint,
    ADD COLUMN IF NOT EXISTS joint_base double precision,
    ADD COLUMN IF NOT EXISTS joint_resid_sd double precision,
    ADD COLUMN IF NOT EXISTS joint_points bigint,
    ADD COLUMN IF NOT EXISTS joint_inconsistent_pairs bigint,
    ADD COLUMN IF NOT EXISTS joint_common_slope double precision,
    ADD COLUMN IF NOT EXISTS joint_common_se double precision,
    ADD COLUMN IF NOT EXISTS joint_common_sd_x double precision,
    ADD COLUMN IF NOT EXISTS joint_common_believed boolean,
    ADD COLUMN IF NOT EXISTS joint_slope double precision,
    ADD COLUMN IF NOT EXISTS joint_se double precision,
    ADD COLUMN IF NOT EXISTS joint_partial_sd double precision,
    ADD COLUMN IF NOT EXISTS joint_believed boolean,
    ADD COLUMN IF NOT EXISTS overhead_source text,
    ADD COLUMN IF NOT EXISTS recovered_pct numeric,
    ADD COLUMN IF NOT EXISTS activity_cores_mean double precision,
    ADD COLUMN IF NOT EXISTS activity_cores_max double precision,
    ADD COLUMN IF NOT EXISTS activity_active_max bigint,
    ADD COLUMN IF NOT EXISTS activity_full_rounds bigint,
    ADD COLUMN IF NOT EXISTS activity_maxed_rounds bigint,
    ADD COLUMN IF NOT EXISTS activity_queue_max bigint,
    ADD COLUMN IF NOT EXISTS contended_readings bigint,
    ADD COLUMN IF NOT EXISTS measured_under_contention boolean,
    ADD COLUMN IF NOT EXISTS filtered_primed bigint,
    ADD COLUMN IF NOT EXISTS inconsistent_pairs bigint,
    ADD COLUMN IF NOT EXISTS unanswered_full_queue_max bigint,
    ADD COLUMN IF NOT EXISTS cpu_ms_per_request numeric,
    ADD COLUMN IF NOT EXISTS knee numeric,
    ADD COLUMN IF NOT EXISTS source text,
    ADD COLUMN IF NOT EXISTS requests bigint,
    ADD COLUMN IF NOT EXISTS requests_per_s numeric,
    ADD COLUMN IF NOT EXISTS measured_p50_ms bigint,
    ADD COLUMN IF NOT EXISTS measured_p95_ms bigint,
    ADD COLUMN IF NOT EXISTS access_lines bigint,
    ADD COLUMN IF NOT EXISTS access_unparsable bigint,
    ADD COLUMN IF NOT EXISTS access_other_pool bigint,
    ADD COLUMN IF NOT EXISTS access_rounds_without_access bigint,
    ADD COLUMN IF NOT EXISTS access_format text;

-- pools whose pm.max_children is past their ceiling: more workers only add latency
CREATE OR REPLACE VIEW fleet_past_ceiling AS
    SELECT hostname, pool, shape, max_children, ceiling, fill_workers
      FROM fpm_pool WHERE max_children > ceiling
     ORDER BY max_children::numeric / ceiling DESC, hostname, pool;

-- hosts whose pools together need more CPU now than the host has
CREATE OR REPLACE VIEW fleet_short_of_cpu AS
    SELECT DISTINCT hostname, host_millicores, needed_now_millicores,
           round(needed_now_millicores::numeric / host_millicores, 2) AS times_the_host
      FROM fpm_pool WHERE needed_now_millicores > host_millicores
     ORDER BY times_the_host DESC, hostname;

-- pools with a shape but no measured host overhead: HOST/W is PHP's own cost
CREATE OR REPLACE VIEW fleet_overhead_unmeasured AS
    SELECT hostname, pool, shape, fit_n, joint_n
      FROM fpm_pool WHERE shape IS NOT NULL AND overhead IS NULL
     ORDER BY hostname, pool;

-- hosts by their pools' starved rounds (requests queued while the CPU was full)
CREATE OR REPLACE VIEW fleet_most_starved AS
    SELECT hostname, sum(starved_rounds) AS starved_rounds, max(rounds) AS rounds
      FROM fpm_pool GROUP BY hostname
    HAVING sum(starved_rounds) > 0
     ORDER BY sum(starved_rounds) DESC, hostname;

-- pools whose pm.max_children is past the advice, and which ceiling binds it
CREATE OR REPLACE VIEW fleet_advice AS
    SELECT hostname, pool, max_children, memory_advice AS advice, memory_binds AS binds,
           ceiling AS cpu_ceiling, memory_mem_ceiling AS mem_ceiling
      FROM fpm_pool WHERE memory_advice IS NOT NULL AND max_children > memory_advice
     ORDER BY max_children - memory_advice DESC, hostname, pool;

-- Section 19: each pool's routes (fpm-analyze --csv-routes; fpm-analyze(1),
-- ROUTES CSV), replaced host by host with its pools.  Schema 1.
CREATE TABLE IF NOT EXISTS fpm_route (
    loaded_at          timestamptz NOT NULL DEFAULT now(),
    schema             integer NOT NULL,
    hostname           text NOT NULL,
    pool               text NOT NULL,
    route              text NOT NULL,
    readings           bigint,
    cpu_share_pct      numeric,
    cpu_ms_per_request numeric,
    busy_pct           numeric,
    p50_ms             bigint,
    p95_ms             bigint,
    p95_ms_at_advice   bigint,
    memory_max_bytes   bigint,
    requests           bigint,
    requests_per_s     numeric,
    PRIMARY KEY (hostname, pool, route)
);
-- an older table: the census's columns (routes schema 2, 20.6)
ALTER TABLE fpm_route DROP CONSTRAINT IF EXISTS fpm_route_schema_check;
ALTER TABLE fpm_route ADD CONSTRAINT fpm_route_schema_check CHECK (schema IN (1, 2));
ALTER TABLE fpm_route
    ADD COLUMN IF NOT EXISTS requests bigint,
    ADD COLUMN IF NOT EXISTS requests_per_s numeric;

-- the heaviest routes across the fleet: per pool name and route, the cores
-- they keep busy over every host (each host's route: its share of the
-- pool's CPU times the pool's mean cores), how many hosts run them, and
-- their CPU per request (weighed by requests where a census counted them,
-- else by readings), their readings, and where censused their requests
-- and requests a second; the route to optimize first
CREATE OR REPLACE VIEW fleet_heaviest_routes AS
    SELECT r.pool, r.route, count(*) AS hosts,
           round(sum(r.cpu_share_pct / 100 * p.activity_cores_mean::numeric), 3) AS cores,
           round(sum(r.cpu_ms_per_request * coalesce(r.requests, r.readings))
                 / nullif(sum(coalesce(r.requests, r.readings)), 0), 2) AS cpu_ms_per_request,
           sum(r.readings) AS readings,
           sum(r.requests) AS requests,
           sum(r.requests_per_s) AS requests_per_s
      FROM fpm_route r JOIN fpm_pool p USING (hostname, pool)
     GROUP BY r.pool, r.route
     ORDER BY cores DESC NULLS LAST, cpu_ms_per_request DESC, r.pool, r.route;
