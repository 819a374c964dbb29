# A board variant of MicroPython's ESP32 port with a ROMFS partition, for cran's badges:
# copied into ports/esp32/boards/<BOARD>/ (README.md beside this file).
set(SDKCONFIG_DEFAULTS
    ${SDKCONFIG_DEFAULTS}
    ${MICROPY_BOARD_DIR}/sdkconfig.romfs
)

list(APPEND MICROPY_DEF_BOARD
    MICROPY_VFS_ROM=1
)
