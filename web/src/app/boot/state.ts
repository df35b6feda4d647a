// A start-up stage (main.tsx): Redux Toolkit, redux-saga and react-redux, in the chunk of their own
// that vite.config.ts makes.
export { configureStore } from '@reduxjs/toolkit';
export { default as createSagaMiddleware } from 'redux-saga';
export { Provider } from 'react-redux';
