// Part of `npm run build`: the files the compiled service reads beside its modules (admin views, styles, scripts).
import { cpSync } from 'node:fs'

for (const dir of ['src/modules/admin/views', 'src/modules/admin/assets']) {
  cpSync(dir, `dist/${dir}`, { recursive: true })
}
