// Builds the dashboard into dist/ as part of `npm install` / `npm ci`: npm runs a workspace's
// `prepare` after installing. The bundle is never committed (.gitignore); the gateway serves dist/.
// An install without dev dependencies (`npm ci --omit=dev`, the container image's runtime stage) has
// no Vite: nothing is built there, and the image copies dist/ from a build stage (Dockerfile).
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
let vite
try {
  vite = await import("vite")
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error
  console.log("@voiceagent/web: Vite is not installed (dev dependencies omitted); the dashboard is not built here")
  process.exit(0)
}
const started = performance.now()
await vite.build({ root, logLevel: "warn", configFile: `${root}vite.config.mjs` })
console.log(`@voiceagent/web: dashboard built into packages/web/dist in ${Math.round(performance.now() - started)} ms`)
