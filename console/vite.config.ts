/**
 * Vite builds the console into dist/ (scripts/build.ts runs it; docs/adr/0033). The files are served
 * by the http-gateway under /console/, hence the base. `npx vite` in this folder serves the sources
 * with hot reload and forwards the API to a Twinport started with `npm start` (self-signed HTTPS).
 */
import { defineConfig } from "vite";

export default defineConfig({
  base: "/console/",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false },
  server: {
    proxy: { "/api": { target: "https://127.0.0.1:8443", secure: false, changeOrigin: true } },
  },
});
