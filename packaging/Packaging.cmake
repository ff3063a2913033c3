# `cpack` (in a build tree, e.g. the release preset) makes a .deb with keel,
# keel-console, the desktop entry, the icon and the Prometheus rules. Library
# dependencies come from dpkg-shlibdeps; what is loaded at run time (the Qt
# PostgreSQL driver, the server programs for the embedded default) is listed
# by hand.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/keel-console.desktop DESTINATION share/applications)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/keel-console.svg
        DESTINATION share/icons/hicolor/scalable/apps)
# Alert and recording rules for Prometheus, to copy into its rule_files.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/prometheus/operations.rules.yml
              ${CMAKE_CURRENT_LIST_DIR}/prometheus/reconciliation.rules.yml
        DESTINATION share/keel/prometheus)
# systemd units (a user keel made by postinst runs them), and examples of
# what they read from /etc/keel (docs/operations/services.md).
install(FILES ${CMAKE_CURRENT_LIST_DIR}/systemd/keel-gateway@.service
              ${CMAKE_CURRENT_LIST_DIR}/systemd/keel-worker.service
              ${CMAKE_CURRENT_LIST_DIR}/systemd/keel-relay.service
        DESTINATION lib/systemd/system)
install(DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/systemd/examples/
        DESTINATION share/doc/keel/examples/etc-keel)
install(FILES ${PROJECT_SOURCE_DIR}/docs/operations/services.md DESTINATION share/doc/keel/operations)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME keel)
set(CPACK_PACKAGE_VENDOR "keel")
set(CPACK_PACKAGE_CONTACT "keel engineers <eng@keel.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Payment-gateway consistency core and its ops console")
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6sql6-psql, postgresql-15, adduser")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/postinst)
include(CPack)
