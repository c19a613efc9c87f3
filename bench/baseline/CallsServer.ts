/**
 * The baseline for the calls benchmark: a plain `node:http` server that does the durable work of
 * placing a zero-length call and ending it, on the platform's own tables, with no framework and no
 * actor runtime: check the API key, the agent and the number; reserve funds in a transaction on
 * the wallet row (with the concurrent-call count); insert the session and its `queued` event;
 * answer 202; then, as the carrier's events would, record dialing, ringing and answered, and end
 * the call in one transaction: settle the reservation, mark the session ended, add the `ended`
 * event and one webhook outbox row per key with a webhook URL.
 *
 * `GET /queued` answers how many webhook rows the tenant has (the end-to-end marker).
 * BACKEND=pg uses `pg` on DATABASE_URL; BACKEND=pglite opens PGLITE_DIR in-process.
 */
import { PGlite } from "@electric-sql/pglite"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import pg from "pg"
import { v7 as uuidv7 } from "uuid"

type Query = (text: string, params: Array<unknown>) => Promise<Array<Record<string, any>>>

interface Db {
  readonly query: Query
  readonly transaction: <A>(f: (query: Query) => Promise<A>) => Promise<A>
}

const connect = async (): Promise<Db> => {
  if (process.env["BACKEND"] === "pglite") {
    const db = new PGlite(process.env["PGLITE_DIR"]!)
    await db.waitReady
    return {
      query: async (text, params) => (await db.query<Record<string, any>>(text, params)).rows,
      transaction: (f) =>
        db.transaction((tx) => f(async (text, params) => (await tx.query<Record<string, any>>(text, params)).rows))
    }
  }
  const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: 10 })
  return {
    query: async (text, params) => (await pool.query(text, params)).rows,
    transaction: async (f) => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        const result = await f(async (text, params) => (await client.query(text, params)).rows)
        await client.query("COMMIT")
        return result
      } catch (error) {
        await client.query("ROLLBACK")
        throw error
      } finally {
        client.release()
      }
    }
  }
}

const db = await connect()
const RESERVATION = 10 // 120 s at 5 per minute, as the platform's defaults
const CONCURRENCY_LIMIT = 100_000

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (c: string) => (body += c)).on("end", () => resolve(body)).on("error", reject)
  })

const event = (query: Query, sessionId: string, type: string, at: Date) =>
  query("INSERT INTO call_events (id, session_id, type, detail, at) VALUES ($1, $2, $3, NULL, $4)", [
    uuidv7(),
    sessionId,
    type,
    at
  ])

/** The carrier's part of a zero-length call, then its end. */
const runCall = async (tenantId: string, sessionId: string, agentId: string, toNumber: string) => {
  for (
    const [status, column, type] of [
      ["DIALING", "dialed_at", "dialing"],
      ["RINGING", "ringing_at", "ringing"],
      ["IN_PROGRESS", "answered_at", "answered"]
    ] as const
  ) {
    const at = new Date()
    await db.query(`UPDATE call_sessions SET status = $2, ${column} = $3, updated_at = now() WHERE id = $1`, [
      sessionId,
      status,
      at
    ])
    await event(db.query, sessionId, type, at)
  }
  await db.transaction(async (query) => {
    const endedAt = new Date()
    await query("SELECT balance, reserved FROM wallets WHERE tenant_id = $1 FOR UPDATE", [tenantId])
    const [reservation] = await query("SELECT status, amount FROM reservations WHERE tenant_id = $1 AND id = $2", [
      tenantId,
      sessionId
    ])
    await query(
      "UPDATE reservations SET status = 'settled', charged = 0, closed_at = now() WHERE tenant_id = $1 AND id = $2",
      [tenantId, sessionId]
    )
    await query("UPDATE wallets SET reserved = reserved - $2 WHERE tenant_id = $1", [tenantId, reservation!["amount"]])
    await query(
      `UPDATE call_sessions SET status = 'ENDED', outcome = 'ANSWERED', end_reason = 'completed', ended_at = $2,
         duration_seconds = 0, billed_seconds = 0, cost = 0, updated_at = now() WHERE id = $1`,
      [sessionId, endedAt]
    )
    await event(query, sessionId, "ended", endedAt)
    const keys = await query(
      `SELECT k.id, k.webhook_url FROM api_keys k JOIN users u ON u.id = k.user_id
       WHERE u.tenant_id = $1 AND k.revoked_at IS NULL AND k.webhook_url IS NOT NULL AND (k.agent_id IS NULL
         OR k.agent_id = $2)`,
      [tenantId, agentId]
    )
    const eventId = uuidv7()
    const body = JSON.stringify({
      id: eventId,
      type: "call.ended",
      createdAt: endedAt.toISOString(),
      data: { sessionId, agentId, toNumber, outcome: "ANSWERED" }
    })
    for (const key of keys) {
      await query(
        `INSERT INTO webhook_deliveries (id, tenant_id, api_key_id, event_id, event_type, url, body, next_attempt_at)
         VALUES ($1, $2, $3, $4, 'call.ended', $5, $6, now())`,
        [uuidv7(), tenantId, key["id"], eventId, key["webhook_url"], body]
      )
    }
  })
}

const server = http.createServer(async (req, res) => {
  const send = (status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    res.end(text)
  }
  try {
    const match = /^bearer\s+(\S+)$/i.exec(req.headers["authorization"] ?? "")
    if (match === null) return send(401, { error: "unauthorized" })
    const hash = crypto.createHash("sha256").update(match[1]!).digest()
    const [key] = await db.query(
      `SELECT k.key_hash, u.tenant_id FROM api_keys k JOIN users u ON u.id = k.user_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash]
    )
    if (key === undefined || !crypto.timingSafeEqual(Buffer.from(key["key_hash"]), hash)) {
      return send(401, { error: "Invalid API key" })
    }
    const tenantId = key["tenant_id"] as string
    if (req.method === "GET" && req.url === "/queued") {
      const [row] = await db.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE tenant_id = $1", [tenantId])
      return send(200, { total: row!["n"] })
    }
    if (req.method !== "POST" || req.url !== "/call") return send(404, { error: "not found" })
    const payload = JSON.parse(await readBody(req)) as { agentId: string; voiceNumberId: string; toNumber: string }
    const [agent] = await db.query("SELECT is_active FROM agents WHERE tenant_id = $1 AND id = $2", [
      tenantId,
      payload.agentId
    ])
    if (agent === undefined || agent["is_active"] !== true) return send(404, { error: "agent" })
    const [number] = await db.query(
      "SELECT phone_number, provider FROM voice_numbers WHERE tenant_id = $1 AND id = $2",
      [tenantId, payload.voiceNumberId]
    )
    if (number === undefined) return send(404, { error: "number" })
    const sessionId = uuidv7()
    const jobId = `job_${uuidv7()}`
    const refused = await db.transaction(async (query) => {
      const [wallet] = await query("SELECT balance, reserved FROM wallets WHERE tenant_id = $1 FOR UPDATE", [tenantId])
      const [open] = await query(
        "SELECT count(*)::int AS n FROM reservations WHERE tenant_id = $1 AND status = 'open'",
        [tenantId]
      )
      if (open!["n"] >= CONCURRENCY_LIMIT) return 429
      if (Number(wallet!["balance"]) - Number(wallet!["reserved"]) < RESERVATION) return 402
      await query("INSERT INTO reservations (id, tenant_id, amount, status) VALUES ($1, $2, $3, 'open')", [
        sessionId,
        tenantId,
        RESERVATION
      ])
      await query("UPDATE wallets SET reserved = reserved + $2, updated_at = now() WHERE tenant_id = $1", [
        tenantId,
        RESERVATION
      ])
      await query(
        `INSERT INTO call_sessions (id, tenant_id, job_id, agent_id, voice_number_id, provider, from_number, to_number,
           status, spec, currency, reserved_seconds)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'QUEUED', $9, 'USD', 120)`,
        [
          sessionId,
          tenantId,
          jobId,
          payload.agentId,
          payload.voiceNumberId,
          number["provider"],
          number["phone_number"],
          payload.toNumber,
          JSON.stringify(payload)
        ]
      )
      await event(query, sessionId, "queued", new Date())
      return undefined
    })
    if (refused !== undefined) return send(refused, { error: "refused" })
    send(202, { sessionId, jobId, status: "QUEUED" })
    runCall(tenantId, sessionId, payload.agentId, payload.toNumber).catch((error) =>
      console.error("call failed", error)
    )
  } catch (error) {
    send(500, { error: String(error) })
  }
})

server.listen(0, "127.0.0.1", () => {
  console.log(`baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
