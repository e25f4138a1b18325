import { defineConfig } from 'vite';
import multicam from 'multicam/vite';

// MULTICAM_FFMPEG=1: the app opts in to the optional GPL ffmpeg core (installed with `npm install @ffmpeg/core`).
export default defineConfig({
  plugins: [multicam({ ffmpeg: process.env.MULTICAM_FFMPEG === '1' })],
});
