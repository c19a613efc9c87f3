/**
 * `npm run bench`: every benchmark the issues ask for, each against a baseline measured in the same run. Prints a table
 * and writes bench/results/latest.{md,json} (subset.{md,json} when BENCH_SUITES picks some suites: auth, contacts,
 * calls, campaigns, retrieval, messages, knowledge, cluster, voice, telephony; BENCH_BACKENDS=pglite or postgres runs
 * one backend only).
 *
 * BENCH_DURATION (seconds per measurement, default 10) and BENCH_CONNECTIONS (default 32) tune
 * the load; DATABASE_URL adds the PostgreSQL rows (a scratch database is created and dropped).
 * BENCH_CAMPAIGN_CONTACTS (default 10000) sizes the campaign, BENCH_CAMPAIGN_API_CALLS (default
 * 2000) its calls-API baseline, BENCH_CAMPAIGN_PARTS (default "e2e,testclock"; "tenant" adds one tenant's
 * many campaigns, BENCH_TENANT_CAMPAIGNS (default 10) of BENCH_TENANT_CAMPAIGN_CONTACTS (default 150)) picks its parts.
 * BENCH_MESSAGES (default 2000) sizes the post-call messages suite. BENCH_KB_CHUNKS (default 3000)
 * sizes the knowledge base of the knowledge suite, BENCH_KB_QUERIES (default 1000) its one-at-a-time
 * queries. BENCH_CLUSTER_CONTACTS (default 3000) sizes the campaign of the cluster suite (PostgreSQL only,
 * which also writes bench/results/cluster.{md,json}). BENCH_VOICE_SECONDS (default 30) and BENCH_VOICE_CONVERSATIONS
 * (default 100) size the voice suite (in process, no database; it also writes bench/results/voice.{md,json}).
 */
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Report from "./lib/Report.js"
import * as AuthenticatedRead from "./suites/AuthenticatedRead.js"
import * as Calls from "./suites/Calls.js"
import * as Campaigns from "./suites/Campaigns.js"
import * as Cluster from "./suites/Cluster.js"
import * as Contacts from "./suites/Contacts.js"
import * as Knowledge from "./suites/Knowledge.js"
import * as Messages from "./suites/Messages.js"
import * as Retrieval from "./suites/Retrieval.js"
import * as Telephony from "./suites/Telephony.js"
import * as Voice from "./suites/Voice.js"

const settings = {
  durationSeconds: Number(process.env["BENCH_DURATION"] ?? 10),
  connections: Number(process.env["BENCH_CONNECTIONS"] ?? 32),
  uploads: Number(process.env["BENCH_UPLOADS"] ?? 50),
  bigList: Number(process.env["BENCH_BIG_LIST"] ?? 100_000),
  calls: Number(process.env["BENCH_CALLS"] ?? 2_000),
  heldCalls: Number(process.env["BENCH_HELD_CALLS"] ?? 1_000),
  heldSettleSeconds: Number(process.env["BENCH_HELD_SETTLE_SECONDS"] ?? 40),
  campaignContacts: Number(process.env["BENCH_CAMPAIGN_CONTACTS"] ?? 10_000),
  campaignApiCalls: Number(process.env["BENCH_CAMPAIGN_API_CALLS"] ?? 2_000),
  campaignParts: (process.env["BENCH_CAMPAIGN_PARTS"] ?? "e2e,testclock").split(",").map((s) => s.trim()),
  tenantCampaigns: Number(process.env["BENCH_TENANT_CAMPAIGNS"] ?? 10),
  tenantCampaignContacts: Number(process.env["BENCH_TENANT_CAMPAIGN_CONTACTS"] ?? 150),
  messages: Number(process.env["BENCH_MESSAGES"] ?? 2_000),
  kbChunks: Number(process.env["BENCH_KB_CHUNKS"] ?? 3_000),
  kbQueries: Number(process.env["BENCH_KB_QUERIES"] ?? 1_000),
  clusterContacts: Number(process.env["BENCH_CLUSTER_CONTACTS"] ?? 3_000),
  voiceConversations: Number(process.env["BENCH_VOICE_CONVERSATIONS"] ?? 100),
  voiceSeconds: Number(process.env["BENCH_VOICE_SECONDS"] ?? 30)
}

/** Which suites to run: all by default, or a comma-separated list in BENCH_SUITES. */
const selected = (name: string) => {
  const wanted = process.env["BENCH_SUITES"]
  return wanted === undefined || wanted === "" || wanted.split(",").map((s) => s.trim()).includes(name)
}

/** Runs `f` against a database created for it on the server in `url`, dropped afterwards. */
const withScratchDatabase = <A>(url: string, f: (url: string) => Promise<A>): Promise<A> =>
  Effect.runPromise(
    TestDatabase.scratchPostgresDatabase(url).pipe(
      Effect.flatMap((db) => Effect.promise(() => f(db.url))),
      Effect.scoped
    )
  )

const rows: Array<Report.Row> = []
const notes: Array<string> = [
  `Load: autocannon, ${settings.connections} connections, ${settings.durationSeconds} s per measurement after a 2 s ` +
  `warm-up, on the same machine as the servers.`,
  "Authenticated read: GET /api/v1/profile with an API key, on npm start's role (the gateway reaches platform-core " +
  "in process). The platform hashes the key (SHA-256), reads it joined to its user and tenant in one statement and " +
  "keeps that row for 2 s (Auth/CredentialCache), so under load almost every request runs no SQL. Servers log at " +
  "warn level.",
  "Baseline: a plain node:http server doing the key lookup and the read of user and tenant (two queries) on every " +
  "request, on the same database (pg pool of 10 on PostgreSQL; PGlite in-process on PGlite). 'vs baseline' is the " +
  "platform's req/s divided by the baseline's. On PostgreSQL the baseline runs beside the platform and the three " +
  "targets are loaded in 4 interleaved rounds of a quarter of the time each (the order turning every round): req/s " +
  "over all rounds, p50/p99 the rounds' medians, 'vs baseline' the median of each round's ratio to that round's " +
  "baseline, 'rounds' range' their spread. On PGlite the platform holds the data directory, so the baseline runs " +
  "after it has stopped.",
  `CSV upload: sequential uploads of a 500-row CSV (phone with formatting, name, e-mail), each into an empty list: ` +
  `${settings.uploads} through the gateway, ${Math.floor(settings.uploads / 2)} straight to the campaign service ` +
  `and to the baseline, which parses the same multipart body, CSV and phones, checks the key and the list, and ` +
  `inserts in one transaction. 'vs baseline' there is the ratio of median times (lower is better).`,
  `Calls end to end: ${settings.calls} calls to a number the simulated carrier answers at once with zero seconds of ` +
  `talk (SIMULATOR_RING_MS=0), placed by ${settings.connections} keep-alive connections each sending its next ` +
  `request when the previous answer is in (autocannon's fixed-amount mode ends on a one-second tick), on the comms ` +
  `service of the start role, after 200 warm-up calls; a call counts when its webhook outbox row exists (placed, ` +
  `dialled, answered, ended, settled, webhook queued). calls/s = calls / (first request to last outbox row). The ` +
  `webhooks are delivered to a receiver in the bench process. Baseline: a plain node:http server doing the same ` +
  `durable writes with SQL (key check, agent and number, reservation on the locked wallet row with the open-call ` +
  `count, session and event rows, then dialing/ringing/answered updates and one end transaction: settle, end, ` +
  `event, outbox row), no actor runtime.`,
  `Memory: a fresh start-role process with --expose-gc, warmed with 200 zero-length calls, then ` +
  `${settings.heldCalls} calls to a number that rings and is never answered (dial timeout 1 hour), held open; heap ` +
  `and RSS after a full GC, idle (${settings.heldSettleSeconds} s after the warm-up) and with every call ringing ` +
  `for ${settings.heldSettleSeconds} s (BENCH_HELD_SETTLE_SECONDS: a ringing call lets its entity go once idle 15 ` +
  `to 30 s). 'reserved' is the wallet's held funds at that moment (10 per call); 'placing p99' the API's p99 while ` +
  `placing them. RSS is shown for context only: it includes memory V8 and PGlite give back after the collection, ` +
  `so it can even shrink; the heap figure is the one to read.`,
  `Contacts page: GET /contact-lists/{id}/contacts?page=N&limit=25 on a list of ${settings.bigList} contacts (seeded ` +
  `with SQL, then VACUUM ANALYZE), the first page and the last full one; the baseline checks the key and the list ` +
  `and runs the same page query (the list's count comes from the list row on both).`,
  `Campaign end to end: a campaign of ${settings.campaignContacts} contacts (distinct valid US numbers ending in ` +
  `000: answered at once, zero seconds of talk, SIMULATOR_RING_MS=0), one voice number, maxConcurrentCalls 100 ` +
  `(the API's maximum), maxAttempts 1, window 00:00–23:59 every day, on the start role with VOICE_NUMBER_CPS=1000 ` +
  `and MAX_CONCURRENT_CALLS=100000, set up through the HTTP API (contacts in bulk requests of 500), after a ` +
  `warm-up of ${200} API calls and a 200-contact campaign. dials/s = contacts / (schedule request to the ` +
  `campaign's completedAt). Baseline in the same process, after the campaign: min(BENCH_CAMPAIGN_API_CALLS, ` +
  `contacts) = ${Math.min(settings.campaignApiCalls, settings.campaignContacts)} calls through POST ` +
  `/channels/voice/call to a …1000 number by ${settings.connections} keep-alive connections (as in the calls ` +
  `suite), timed from the first request until call-logs counts them all ENDED (polled every 250 ms; the campaign's ` +
  `progress every second); the API key has no webhook URL, so neither path queues webhooks. The platform runs with ` +
  `CLUSTER_STORAGE_RETENTION=${60} seconds and CLUSTER_STORAGE_CLEANUP_INTERVAL=${10} seconds; on PostgreSQL the ` +
  `cluster's message tables (rows, and bytes of pg_total_relation_size: a delete frees space for reuse, not to the ` +
  `disk) are read before the measured campaign, right after it, and after the API calls and one cleanup period (72 ` +
  `s). SQL/dial = statements the platform process started in the interval (SqlActivity.started(), read through the ` +
  `memory probe; the pg driver is counted by the probe's patch) minus those of the bench's own progress / call-log ` +
  `polls (measured on their own), divided by the dials; it includes background work, shown on its own as 'idle ` +
  `SQL/s' (measured for 5 s between the warm-up and the campaign). node CPU ms/dial = the platform process's CPU ` +
  `time over the same interval (user + system of all its threads: the event loop, V8's collector and compiler ` +
  `threads, the speech synthesis workers) divided by the dials; PG CPU ms/dial (PostgreSQL) = the CPU time of ` +
  `every postgres process on the machine over the interval divided by the dials (it includes whatever else the ` +
  `server ran meanwhile). BENCH_COMPILED=1 runs the platform from the production build (npm run build, plain node) ` +
  `instead of tsx.`,
  `One tenant, many campaigns (BENCH_CAMPAIGN_PARTS=tenant): on the start role as the end-to-end part ` +
  `(SIMULATOR_RING_MS=0, VOICE_NUMBER_CPS=1000, MAX_CONCURRENT_CALLS=100000), one tenant with ` +
  `${settings.tenantCampaigns + 1} voice numbers; after a 200-contact warm-up campaign, the baseline: one campaign ` +
  `of ${settings.tenantCampaigns * settings.tenantCampaignContacts} contacts on one number; then ` +
  `${settings.tenantCampaigns} campaigns of ${settings.tenantCampaignContacts} contacts, each on its own number, ` +
  `scheduled at once (concurrent requests). Every campaign maxConcurrentCalls 100, maxAttempts 1, window ` +
  `00:00–23:59 every day, distinct zero-length numbers. dials/s = dials / (first schedule request to the last ` +
  `completedAt); SQL/dial = the platform's statements over the interval less the bench's progress polls (each ` +
  `campaign's progress read every second until it completes), per dial.`,
  `Campaign under TestClock: the same ${settings.campaignContacts} contacts in the bench process through the testing ` +
  `kit (TestKit.layer({ ringMillis: 0 }) under Effect's TestContext, fresh in-memory PGlite), one voice number at ` +
  `the default 1 dial/s, maxConcurrentCalls 100, window 09:00–10:00 America/New_York every day, scheduled at ` +
  `Monday 2026-01-05 00:00Z and walked with TestKit.advance 10 virtual minutes at a time until COMPLETED. 'wall s' ` +
  `is the real time of that walk; 'virtual span' runs from the schedule to completedAt; 'setup s' is the layer, ` +
  `tenant, list and campaign; SQL/dial excludes the bench's status reads.`,
  "Retrieval: the built-in offline embedder (offline-hash-v1) on the corpus in packages/runner/test/fixtures/kb-eval " +
  "(54 passages written for it, 54 customer questions each with its expected passage); passages and questions " +
  "embedded, passages ranked by cosine; recall@k = share of questions whose passage ranks in the top k. Baseline " +
  "in the same run: plain word overlap (the same tokens, each distinct word weighted equally, cosine). In process, " +
  "no database; run once.",
  `Post-call messages: in the bench process, the testing kit's runtime on the real clock (embedded cluster; fresh ` +
  `in-memory PGlite, or a fresh database on the PostgreSQL server), production messaging options (batches of 50, ` +
  `16 sends at once, 1 s poll interval), PROVIDER_A's SMS sender the real Twilio adapter pointed at FakeMessaging ` +
  `on 127.0.0.1; one tenant, one agent, one SMS campaign. ${settings.messages} call-ended events (ANSWERED, ` +
  `distinct sessions) published to the outbox 100 per transaction as fast as possible, each transaction followed ` +
  `by the dispatcher's wake-up, after a warm-up of 200 on every path; msgs/s = messages / (first publish to the ` +
  `last row's sent_at; every row polled SENT every 100 ms). 'kept awake' adds a wake-up every 10 ms, as calls that ` +
  `keep ending give; 'a burst' has only the publishing's (the dispatcher runs passes back to back while they find ` +
  `work, so both should agree). Baseline, same database and adapter instance: the same rows arriving the same way ` +
  `(100 INSERTs per transaction) into a copy of the messages table (columns, checks, indexes), handed over in ` +
  `memory to 16 workers that send each and UPDATE it to SENT; no cluster, no wallet. 'adapter alone': the sends ` +
  `only, 16 at once. The fake must accept exactly ${settings.messages} sends per path. p50/p99 = sent_at − ` +
  `created_at (queueing included; for the adapter, one send). SQL/msg = SqlActivity.started() over the interval ` +
  `minus the bench's polls.`,
  `Knowledge bases: npm start's role in its own process (PGlite under its DATA_DIR, or a fresh database on the ` +
  `PostgreSQL server) with CHROMA_URL pointing at a Chroma server (chromadb's chroma CLI on a temporary directory) ` +
  `that the bench process started and shares; the built-in offline embedder (offline-hash-v1, 1,024 dimensions). ` +
  `Corpus: ${settings.kbChunks} chunks (the platform's own chunker) of generated customer-service paragraphs ` +
  `(seeded, the same every run) in TEXT documents of 250 chunks, added through the API (not timed). Ingestion, ` +
  `platform: POST /knowledge-bases/{id}/ingestion-jobs through the gateway, the job polled every 100 ms until ` +
  `SUCCEEDED (one run, every chunk in the collection); timed from the POST to the job's finishedAt; 'queued s' = ` +
  `createdAt → startedAt, 'run s' = startedAt → finishedAt; SQL/batch = statements the platform process started ` +
  `(memory probe) less the polls', per 64-chunk batch. Baseline: the same chunks, ids and metadata embedded with ` +
  `the same embedder and upserted through the VectorStore port (ChromaVectorStore.make) into a fresh collection on ` +
  `the same server, per document in batches of 64, one after another, nothing else ('embed s' and 'upsert s' split ` +
  `its time). ${Knowledge.INGESTION_ROUNDS} rounds per path (a fresh knowledge base or collection each, the order ` +
  `alternating), median reported with the range. Queries: POST /knowledge-bases/{id}/query {query, topK 5}, 200 ` +
  `distinct customer questions sent in turn, on the last round's knowledge base: ${settings.kbQueries} one at a ` +
  `time through the gateway, the same straight to the comms service, and GET /knowledge-bases/{id} (key check and ` +
  `one read) as a reference; then autocannon through the gateway (${settings.connections} connections, ` +
  `${settings.durationSeconds} s after a 2 s warm-up). Baseline in the bench process: embed + VectorStore.query on ` +
  `the platform's collection, scored and filtered by the knowledge base's threshold as the platform does, one at a ` +
  `time and ${settings.connections} at once (2 s warm-up, then ${settings.durationSeconds} s). 'vs baseline' = ` +
  `chunks/s or req/s ratio; 'p50 vs baseline' = ratio of medians (higher is slower); 'same chunks' = questions ` +
  `answered with the same chunk ids in the same order on both paths. Warm-up: 300 chunks and 200 queries on each ` +
  `path.`
]

const suites = [
  { name: "auth", run: AuthenticatedRead.run },
  { name: "contacts", run: Contacts.run },
  { name: "calls", run: Calls.run },
  { name: "campaigns", run: Campaigns.run },
  { name: "retrieval", run: (backend: { readonly name: string }) => Retrieval.run(backend) },
  { name: "messages", run: Messages.run },
  { name: "knowledge", run: Knowledge.run },
  { name: "cluster", run: Cluster.run },
  { name: "voice", run: Voice.run },
  { name: "telephony", run: (backend: { readonly name: string }) => Telephony.run(backend) }
] as const

if (selected("cluster")) notes.push(...Cluster.notes(settings))
if (selected("voice")) notes.push(...Voice.notes(settings))
if (selected("telephony")) notes.push(...Telephony.notes)

console.log(`Benchmarks on ${Report.machine()}`)
const databaseUrl = process.env["DATABASE_URL"]
/** Which backends to run on: both by default, or BENCH_BACKENDS=pglite / postgres. */
const backends = (process.env["BENCH_BACKENDS"] ?? "pglite,postgres").split(",").map((s) => s.trim())
for (const suite of suites.filter((s) => selected(s.name))) {
  if (backends.includes("pglite")) {
    console.log(`- ${suite.name} on PGlite`)
    rows.push(...await suite.run({ name: "pglite" }, settings))
  }
  if (backends.includes("postgres") && databaseUrl !== undefined && databaseUrl !== "") {
    console.log(`- ${suite.name} on PostgreSQL`)
    rows.push(...await withScratchDatabase(databaseUrl, (url) => suite.run({ name: "postgres", url }, settings)))
  }
}
if (databaseUrl === undefined || databaseUrl === "") notes.push("PostgreSQL rows skipped: DATABASE_URL was not set.")

console.log(`\n${Report.tables(rows)}\n`)
// A run of some suites only (BENCH_SUITES) does not replace the full results.
const output = process.env["BENCH_SUITES"] === undefined || process.env["BENCH_SUITES"] === "" ? "latest" : "subset"
Report.write(rows, notes, output)
console.log(`Written to bench/results/${output}.md and bench/results/${output}.json`)
