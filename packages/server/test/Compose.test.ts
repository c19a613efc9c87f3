import { assert, describe, it } from "@effect/vitest"
import { ServiceNames } from "@voiceagent/domain/Gateway"
import * as Config from "@voiceagent/server/Config"
import { RUNNER_NODE_FLAGS } from "@voiceagent/server/NodeFlags"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import YAML from "yaml"

// Docker is not available where the tests run, so the compose file and the Dockerfile are checked
// against the CLI's roles and configuration instead, to keep them from drifting.
const root = fileURLToPath(new URL("../../../", import.meta.url))
const compose = YAML.parse(fs.readFileSync(`${root}docker-compose.yml`, "utf8"), { merge: true }) as {
  services: Record<string, any>
  volumes: Record<string, unknown>
}
const dockerfile = fs.readFileSync(`${root}Dockerfile`, "utf8")

const known = new Set<string>(Config.Variables.map((v) => v.name))
const platformServices = Object.entries(compose.services).filter(([, s]) => s.image === "voice-agent-platform:local")
const portVariable: Record<string, string> = {
  "platform-core": "PLATFORM_CORE_PORT",
  comms: "COMMS_PORT",
  campaign: "CAMPAIGN_PORT",
  gateway: "PORT"
}

describe("docker-compose.yml", () => {
  it("runs every role of the CLI, and only roles that exist", () => {
    const commands = platformServices.map(([, s]) => (s.command as Array<string>).join(" ")).sort()
    assert.deepStrictEqual(commands, [
      "migrate",
      "runner",
      "serve campaign",
      "serve comms",
      "serve gateway",
      "serve platform-core"
    ])
    for (const [name, service] of platformServices) {
      const [role, target] = service.command as Array<string>
      if (role === "serve") assert.include([...ServiceNames, "gateway"], target, name)
    }
  })

  it("sets only variables the configuration knows, and every one a serving role needs", () => {
    for (const [name, service] of platformServices) {
      const env = service.environment as Record<string, string>
      for (const variable of Object.keys(env)) assert.isTrue(known.has(variable), `${name}: unknown ${variable}`)
      assert.match(env["DATABASE_URL"]!, /^postgres:\/\/[^@]+@postgres:5432\//, name)
      assert.isDefined(env["JWT_SECRET"], name)
      assert.strictEqual(env["HOST"], "0.0.0.0", name)
    }
  })

  it("runs the official Chroma image, persistent, and points runners and the comms service at it", () => {
    const chroma = compose.services["chroma"]
    assert.match(chroma.image, /^chromadb\/chroma:1\.\d+\.\d+$/, "a pinned 1.x server, the API the client speaks (v2)")
    assert.include(chroma.volumes, "chroma-data:/data", "data on a named volume")
    assert.property(compose.volumes, "chroma-data")
    assert.include(chroma.healthcheck.test.join(" "), "/dev/tcp/127.0.0.1/8000")
    for (const name of ["runner", "comms"]) {
      const service = compose.services[name]
      assert.strictEqual(service.environment.CHROMA_URL, "http://chroma:8000", name)
      assert.strictEqual(service.depends_on.chroma.condition, "service_healthy", name)
    }
  })

  it("runs at least two runners that advertise their own addresses and listen on every interface", () => {
    const runner = compose.services["runner"]
    assert.deepStrictEqual(runner.command, ["runner"])
    assert.isAtLeast(runner.deploy.replicas, 2)
    assert.strictEqual(runner.environment.RUNNER_HOST, "auto")
    assert.strictEqual(runner.environment.RUNNER_LISTEN_HOST, "0.0.0.0")
    // the media server carriers stream calls to: on its own port, advertised at the runner's own address
    assert.strictEqual(runner.environment.MEDIA_PORT, "3004")
    assert.isUndefined(runner.environment.MEDIA_PUBLIC_URL, "one public media origin cannot serve several replicas")
    assert.include(runner.healthcheck.test.join(" "), `connect(${runner.environment.RUNNER_PORT},'127.0.0.1')`)
    assert.include(runner.healthcheck.test.join(" "), `127.0.0.1:${runner.environment.METRICS_PORT}/healthz`)
    // a clean stop hands shards over: give it longer than the default 10 s before SIGKILL
    assert.match(runner.stop_grace_period, /^\d+s$/)
    assert.isAbove(Number.parseInt(runner.stop_grace_period), 10)
  })

  it("probes each service's readiness on the port it listens on", () => {
    for (const [name, service] of platformServices) {
      const [role, target] = service.command as Array<string>
      if (role !== "serve") continue
      const port = service.environment[portVariable[target!]!]
      assert.isDefined(port, `${name} sets ${portVariable[target!]}`)
      assert.include(service.healthcheck.test.join(" "), `127.0.0.1:${port}/readyz`, name)
    }
  })

  it("points the gateway at the services' compose names and ports", () => {
    const env = compose.services["gateway"].environment
    for (
      const [service, variable] of [
        ["platform-core", "PLATFORM_CORE_URL"],
        ["comms", "COMMS_URL"],
        ["campaign", "CAMPAIGN_URL"]
      ] as const
    ) {
      const port = compose.services[service].environment[portVariable[service]!]
      assert.strictEqual(env[variable], `http://${service}:${port}`)
    }
    assert.deepStrictEqual(compose.services["gateway"].ports, [`${env.PORT}:${env.PORT}`])
  })

  it("orders start-up: database healthy, migrations done, services healthy, then the gateway", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [dependency, condition] of Object.entries(service.depends_on ?? {})) {
        assert.property(compose.services, dependency, `${name} depends on a service that exists`)
        assert.include(
          ["service_healthy", "service_completed_successfully"],
          (condition as { condition: string }).condition
        )
      }
    }
    assert.strictEqual(compose.services["migrate"].depends_on.postgres.condition, "service_healthy")
    assert.match(compose.services["postgres"].image, /^postgres:16/)
  })
})

describe("docker-compose.yml stopping", () => {
  it("gives every platform container longer than SHUTDOWN_GRACE between SIGTERM and SIGKILL", () => {
    const seconds = (text: string) => {
      const match = /^(\d+)\s*(s|seconds?)$/.exec(text.trim())
      assert.isNotNull(match, `a duration in seconds: ${text}`)
      return Number(match![1])
    }
    const defaultGrace = Config.Variables.find((v) => v.name === "SHUTDOWN_GRACE")!.default!
    for (const [name, service] of platformServices) {
      if (service.restart === "no") continue // the one-shot migrate job
      const grace = seconds(String(service.environment?.SHUTDOWN_GRACE ?? defaultGrace))
      // Compose's own default is 10 s: it must be set, and leave room for the shard hand-over after the grace
      assert.isDefined(service.stop_grace_period, name)
      assert.isAtLeast(seconds(String(service.stop_grace_period)), grace + 10, name)
    }
  })
})

describe("Dockerfile", () => {
  it("builds slim images of a supported Node LTS that run the compiled CLI with plain node as a non-root user", () => {
    const bases = [...dockerfile.matchAll(/^FROM node:(\d+)-[a-z]+-slim\b/gm)].map((m) => Number(m[1]))
    assert.isAtLeast(bases.length, 2)
    // every stage on one even (LTS) line, one still supported: 20 ended in April 2026
    assert.strictEqual(new Set(bases).size, 1)
    assert.isTrue(bases[0]! >= 22 && bases[0]! % 2 === 0, `node:${bases[0]}`)
    assert.match(dockerfile, /npm ci --omit=dev/)
    assert.match(dockerfile, /npm run build/)
    assert.match(dockerfile, /^USER node$/m)
    assert.match(
      dockerfile,
      new RegExp(
        String.raw`^ENTRYPOINT \["node", (?:"--[a-z-]+=\d+", )*"--conditions=voiceagent-compiled", ` +
          String.raw`"packages\/server\/dist\/main\.js"\]$`,
        "m"
      )
    )
    // the compiled packages are what the image copies, and each package resolves to them under that condition
    for (const name of ["domain", "runner", "http", "server"]) {
      assert.include(dockerfile, `COPY --from=build /app/packages/${name}/dist ./packages/${name}/dist\n`)
      const manifest = JSON.parse(fs.readFileSync(`${root}packages/${name}/package.json`, "utf8"))
      assert.strictEqual(manifest.exports["./*"]["voiceagent-compiled"], "./dist/*.js", name)
    }
    assert.isTrue(fs.existsSync(`${root}packages/server/src/main.ts`))
    assert.isTrue(fs.existsSync(`${root}scripts/build.mjs`))
  })

  it("installs every workspace's manifest (npm ci needs them all) and leaves the dev tooling's code out", () => {
    const workspaces = (JSON.parse(fs.readFileSync(`${root}package.json`, "utf8")) as { workspaces: Array<string> })
      .workspaces
    assert.include(workspaces, "packages/devtools")
    for (const workspace of workspaces) {
      assert.include(dockerfile, `COPY ${workspace}/package.json ${workspace}/\n`, workspace)
    }
    const ignored = fs.readFileSync(`${root}.dockerignore`, "utf8").split("\n").map((line) => line.trim())
    assert.include(ignored, "packages/devtools/src")
    // nothing the image runs imports it
    for (const name of ["domain", "runner", "http", "server"]) {
      const manifest = JSON.parse(fs.readFileSync(`${root}packages/${name}/package.json`, "utf8"))
      assert.notProperty(manifest.dependencies ?? {}, "@voiceagent/devtools", name)
      for (const file of fs.readdirSync(`${root}packages/${name}/src`, { recursive: true, encoding: "utf8" })) {
        if (!file.endsWith(".ts")) continue
        assert.notInclude(fs.readFileSync(`${root}packages/${name}/src/${file}`, "utf8"), "@voiceagent/devtools", file)
      }
    }
  })

  it("runs every role with the V8 flags of the processes that hold live calls, as npm start does", () => {
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]!) as Array<string>
    assert.deepStrictEqual(entrypoint.slice(1, 1 + RUNNER_NODE_FLAGS.length), [...RUNNER_NODE_FLAGS])
    const scripts =
      (JSON.parse(fs.readFileSync(`${root}package.json`, "utf8")) as { scripts: Record<string, string> }).scripts
    assert.include(scripts["start"]!, `tsx ${RUNNER_NODE_FLAGS.join(" ")} packages/server/src/main.ts start`)
  })

  it("gives the install stage the manifest of every workspace, so `npm ci` installs what the lockfile says", () => {
    const workspaces = (JSON.parse(fs.readFileSync(`${root}package.json`, "utf8")) as { workspaces: Array<string> })
      .workspaces
    const installStage = dockerfile.slice(0, dockerfile.indexOf("RUN npm ci"))
    assert.match(installStage, /^COPY package\.json package-lock\.json \.\/$/m)
    for (const workspace of workspaces) {
      assert.include(installStage, `COPY ${workspace}/package.json ${workspace}/\n`, workspace)
    }
  })
})
