/**
 * The web dashboard (packages/web), served by the gateway at `/` on the API's own origin: the
 * bundle Vite builds into `packages/web/dist` during `npm install` (the workspace's `prepare`).
 *
 * - `index.html` for `/` and for each client-side route (`DASHBOARD_ROUTES`), so a reload or a
 *   shared link opens the page; `no-cache` (revalidated by its ETag). The security headers every
 *   answer carries (RequestContext's `securityHeaders`: never framed, no sniffing) apply here too.
 * - `/assets/*`: the hashed bundle files, `immutable` for a year (a new build has new names).
 * - Only files found in the bundle at load are served: a path is looked up in that map, never
 *   joined to a directory, so nothing outside the bundle can be named (no traversal).
 * - Text files gzip-compressed once, at load, for clients that accept it.
 * - No bundle: 503 with what to run, and the bundle is looked for again on the next request.
 *
 * The API under `/api/...`, `/docs`, `/healthz` and `/readyz` are untouched: the gateway mounts these
 * routes beside them, before its proxy.
 */
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as zlib from "node:zlib"
import { errorResponse } from "../RequestContext.js"

/** The dashboard's client-side routes (packages/web/src/main.tsx): each answers `index.html`. */
export const DASHBOARD_ROUTES = [
  "/",
  "/login",
  "/signup",
  "/agents",
  "/agents/:id",
  "/contacts",
  "/contacts/:id",
  "/campaigns",
  "/campaigns/:id",
  "/calls",
  "/calls/:id",
  "/knowledge",
  "/knowledge/:id",
  "/messaging",
  "/wallet",
  "/keys"
] as const

/** Where Vite puts the hashed files (packages/web/vite.config.mjs). */
export const DASHBOARD_ASSETS_ROUTE = "/assets/*"

/** Every path the gateway answers from the dashboard. */
export const DASHBOARD_PATHS: ReadonlyArray<HttpRouter.PathInput> = [...DASHBOARD_ROUTES, DASHBOARD_ASSETS_ROUTE]

/** packages/web/dist, beside this package in the repository and in the container image. */
export const defaultDashboardDirectory = fileURLToPath(new URL("../../../web/dist/", import.meta.url))

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json"
}
const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json", ".txt", ".map"])

interface StaticFile {
  readonly body: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly contentType: string
  readonly etag: string
  readonly cacheControl: string
}

/**
 * Every file of the bundle by its URL path (`/index.html`, `/assets/index-abc123.js`); undefined without index.html.
 */
export const loadBundle = (directory: string): ReadonlyMap<string, StaticFile> | undefined => {
  if (!fs.existsSync(path.join(directory, "index.html"))) return undefined
  const files = new Map<string, StaticFile>()
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(directory, relative), { withFileTypes: true })) {
      const name = relative === "" ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) walk(name)
      else if (entry.isFile()) {
        const body = fs.readFileSync(path.join(directory, name))
        const extension = path.extname(name).toLowerCase()
        const gzip = COMPRESSIBLE.has(extension) && body.length > 1024 ? zlib.gzipSync(body, { level: 9 }) : undefined
        files.set(`/${name}`, {
          body,
          gzip: gzip !== undefined && gzip.length < body.length ? gzip : undefined,
          contentType: CONTENT_TYPES[extension] ?? "application/octet-stream",
          etag: `"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
          cacheControl: name.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache"
        })
      }
    }
  }
  walk("")
  return files
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Dashboard not built</title>
<h1>The dashboard is not built</h1>
<p>The gateway serves the web dashboard from <code>packages/web/dist</code>, which <code>npm install</code> builds.
Run <code>npm install</code> (or <code>npm run build -w @voiceagent/web</code>) and reload. The API itself is at
<a href="/docs">/docs</a>.</p>`

/**
 * The handler for `DASHBOARD_ROUTES` and `DASHBOARD_ASSETS_ROUTE`: the bundle in `directory`, read
 * once when first asked for (looked for again while it is missing).
 */
export const makeDashboard = (directory: string = defaultDashboardDirectory) => {
  let bundle: ReadonlyMap<string, StaticFile> | undefined
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    bundle ??= loadBundle(directory)
    if (bundle === undefined) {
      return HttpServerResponse.text(NOT_BUILT, {
        status: 503,
        contentType: "text/html; charset=utf-8",
        headers: { "cache-control": "no-store" }
      })
    }
    const pathname = new URL(request.url, "http://gateway").pathname
    // an asset by its exact name (a `..` resolved by the URL parser and leaving /assets/ finds nothing)
    const file = request.url.startsWith("/assets/") ? bundle.get(pathname) : bundle.get("/index.html")
    if (file === undefined) return yield* errorResponse(404, "NOT_FOUND", `No dashboard file at ${pathname}`)
    const headers: Record<string, string> = {
      "cache-control": file.cacheControl,
      etag: file.etag,
      vary: "accept-encoding",
      "x-content-type-options": "nosniff"
    }
    if (request.headers["if-none-match"] === file.etag) return HttpServerResponse.empty({ status: 304, headers })
    const gzip = file.gzip !== undefined && /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
    if (gzip) headers["content-encoding"] = "gzip"
    return HttpServerResponse.uint8Array(gzip ? file.gzip! : file.body, {
      status: 200,
      headers,
      contentType: file.contentType
    })
  })
}
