/**
 * The baseline for the authenticated-read benchmark: a plain `node:http` server doing the same
 * work as `GET /api/v1/profile` with an API key (hash the key, look it up with its user's tenant,
 * check expiry, read the user and tenant, answer JSON), with no framework around it.
 * BACKEND=pg uses `pg` on DATABASE_URL; BACKEND=pglite opens PGLITE_DIR in-process.
 */
import { PGlite } from "@electric-sql/pglite"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import pg from "pg"

type Query = (text: string, params: Array<unknown>) => Promise<Array<Record<string, any>>>

const connect = async (): Promise<Query> => {
  if (process.env["BACKEND"] === "pglite") {
    const db = new PGlite(process.env["PGLITE_DIR"]!)
    await db.waitReady
    return async (text, params) => (await db.query<Record<string, any>>(text, params)).rows
  }
  const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: 10 })
  return async (text, params) => (await pool.query(text, params)).rows
}

const query = await connect()

const server = http.createServer(async (req, res) => {
  const send = (status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    res.end(text)
  }
  try {
    const header = req.headers["authorization"] ?? ""
    const match = /^bearer\s+(\S+)$/i.exec(header)
    if (req.url !== "/api/v1/profile" || match === null) return send(401, { error: "unauthorized" })
    const hash = crypto.createHash("sha256").update(match[1]!).digest()
    const [key] = await query(
      `SELECT k.id, k.user_id, k.key_hash, k.expires_at, u.tenant_id
       FROM api_keys k JOIN users u ON u.id = k.user_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash]
    )
    if (key === undefined || !crypto.timingSafeEqual(Buffer.from(key["key_hash"]), hash)) {
      return send(401, { error: "Invalid API key" })
    }
    if (key["expires_at"] !== null && new Date(key["expires_at"]).getTime() <= Date.now()) {
      return send(401, { error: "API key has expired" })
    }
    const [user] = await query(
      `SELECT u.id, u.email, u.tenant_id, u.created_at, t.name AS tenant_name, t.currency, t.created_at
        AS tenant_created_at
       FROM users u LEFT JOIN tenants t ON t.id = u.tenant_id WHERE u.id = $1`,
      [key["user_id"]]
    )
    send(200, {
      user: {
        id: user!["id"],
        email: user!["email"],
        tenantId: user!["tenant_id"],
        createdAt: new Date(user!["created_at"]).toISOString()
      },
      tenant: user!["tenant_id"] === null ? null : {
        id: user!["tenant_id"],
        name: user!["tenant_name"],
        currency: String(user!["currency"]).trim(),
        createdAt: new Date(user!["tenant_created_at"]).toISOString()
      },
      credential: { type: "api_key", apiKeyId: key["id"] }
    })
  } catch (error) {
    send(500, { error: String(error) })
  }
})

server.listen(0, "127.0.0.1", () => {
  console.log(`baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
