import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

// The bot's aiohttp ops server serves the build under /app/ from bot/miniapp/static,
// which is committed, so the server needs no node at run time.
export default defineConfig({
  base: '/app/',
  plugins: [preact()],
  publicDir: false,
  build: {
    outDir: '../bot/miniapp/static',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Telegram's web views are evergreen; the preload polyfill would only add bytes.
    modulePreload: { polyfill: false },
  },
});
