// A start-up stage (main.tsx): React, in the chunk of its own that vite.config.ts makes.
export { createRoot, hydrateRoot } from 'react-dom/client';
