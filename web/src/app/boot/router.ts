// A start-up stage (main.tsx): React Router, in the chunk of its own that vite.config.ts makes.
export { RouterProvider } from 'react-router-dom';
