// A start-up stage (main.tsx): react-hot-toast, in the chunk of its own that vite.config.ts makes.
export { default as toast } from 'react-hot-toast';
