// The time machine's words (Spanish, like the rest of the dashboard).
export const TIME_MACHINE_TEXTS = {
  noDate: 'Elige una fecha y una hora.',
  badDate: 'Esa fecha y hora no son válidas.',
  badDay: 'El día es un número entero desde 0.',
  noStartDate: 'Sin fecha de inicio en los datos principales no hay «día N»: elige una fecha y hora.',
  dayNotYet: (day: number, today: number) => `El día ${day} aún no ha llegado: hoy es el día ${today}.`,
  noPosition: 'Escribe una posición del registro de eventos.',
  tooMany: 'Hay demasiadas reconstrucciones guardadas: elimina alguna antes de pedir otra.',
  failed: 'La reconstrucción falló. Prueba de nuevo o elige otro momento.',
  tooLong: 'La reconstrucción sigue en curso tras demasiado tiempo; consúltala de nuevo más tarde.',
  stillRunning: 'Esa reconstrucción aún está en curso: espera a que termine.',
  gone: 'Esa reconstrucción ya no existe en el servidor.',
  noAnswer: 'El servidor no respondió.',
  status: (status: number) => `Error ${status} del servidor.`,
} as const;

/** The "Progreso hacia la meta" block's words. */
export const PROGRESS_TEXTS = {
  title: 'Progreso hacia la meta',
  loading: 'Cargando el progreso…',
  failed: 'No se pudo cargar el progreso. Recarga la página para intentarlo de nuevo.',
  figures: 'Progreso de hoy',
  chart: {
    chart: 'Gráfico de pases tomados por día frente al ritmo que pide la meta. Las cifras de hoy están encima.',
    passes: 'Pases tomados',
    pace: 'Ritmo',
  },
  day: 'Día',
  taken: 'Pases tomados',
  share: 'De la meta',
  paceToday: 'El ritmo pide hoy',
  dayOf: (day: string, days: string) => `${day} de ${days}`,
  takenOf: (taken: string, goal: string) => `${taken} de ${goal}`,
  under: 'menos del 0.1%',
  noStartDate: 'Sin fecha de inicio',
} as const;
