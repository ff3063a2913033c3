cmake_minimum_required(VERSION 3.25)
# Migrations are append-only: a landed file never changes, since a database
# that applied it records its checksum and refuses a keel whose copy differs.
# resources/migrations/SHA256SUMS lists every migration; a changed file, or a
# new one not listed, fails this check (ctest: migrations.unchanged). Adding a
# new migration means adding its line; changing a listed one is the mistake
# this exists to catch.
# Run: cmake -DDIR=<resources/migrations> -P MigrationsUnchanged.cmake
file(STRINGS "${DIR}/SHA256SUMS" lines)
set(listed "")
foreach(line IN LISTS lines)
  string(REGEX MATCH "^([0-9a-f]+)  (.+)$" matched "${line}")
  if(NOT matched)
    message(FATAL_ERROR "SHA256SUMS: cannot read the line '${line}'")
  endif()
  set(expected "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  list(APPEND listed "${name}")
  if(NOT EXISTS "${DIR}/${name}")
    message(SEND_ERROR "${name} is listed but missing: a landed migration was removed")
    continue()
  endif()
  file(SHA256 "${DIR}/${name}" actual)
  if(NOT actual STREQUAL expected)
    message(SEND_ERROR "${name} changed after it was listed: write a new migration instead")
  endif()
endforeach()
file(GLOB present RELATIVE "${DIR}" "${DIR}/*.sql")
foreach(name IN LISTS present)
  if(NOT name IN_LIST listed)
    message(SEND_ERROR "${name} is not in SHA256SUMS: add its line (sha256sum ${name})")
  endif()
endforeach()
list(LENGTH listed count)
message(STATUS "${count} migrations match their recorded checksums")
