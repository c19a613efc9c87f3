import { defineConfig } from "vite"

// Preact's JSX through esbuild (no plugin); hashed assets under /assets (served immutable by the
// gateway, packages/http/src/Gateway/Dashboard.ts); `npm run dev -w @voiceagent/web` proxies /api to
// a platform on :3000.
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: { target: "es2022", outDir: "dist", emptyOutDir: true, assetsDir: "assets", reportCompressedSize: false },
  server: { proxy: { "/api": "http://127.0.0.1:3000" } }
})
