import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/build/**", ".data/**", "bench/results/**"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-namespace": "off",
      "no-console": ["error", { allow: ["error"] }],
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@effect/schema", "@effect/schema/*"], message: "Schemas come from effect/Schema." },
            { group: ["**/server/src/*"], message: "Nothing imports the server package but its own code and tests." }
          ]
        }
      ]
    }
  },
  {
    files: ["packages/domain/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["node:*", "@voiceagent/runner/*", "@voiceagent/http/*", "@voiceagent/server/*"], message: "domain is pure: no I/O, no lower packages." }
          ]
        }
      ]
    }
  },
  {
    files: ["packages/runner/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@voiceagent/http/*", "@voiceagent/server/*"], message: "runner sits below http and server." }] }
      ]
    }
  },
  {
    files: ["packages/http/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@voiceagent/server/*"], message: "http sits below server." }] }
      ]
    }
  },
  {
    files: ["bench/**/*.ts", "packages/*/test/**/*.ts"],
    rules: { "no-console": "off" }
  }
)
